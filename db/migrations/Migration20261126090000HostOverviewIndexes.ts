import { Migration } from '@mikro-orm/migrations';

/**
 * The listings overview of a large organization reads only what its "to act on" list can name:
 * a property's views in the channels by the property (not by the channel), the few properties
 * withdrawn somewhere, and the few whose certificate or identifier is valid through a date near
 * today, found by the dates themselves rather than by reading every property's legal data.
 */
export class Migration20261126090000HostOverviewIndexes extends Migration {
  override up(): void {
    this.addSql(
      `create index "channel_resource_property_view" on "channel_resource" ("internal_id", "channel_id") include ("status") where "kind" = 'property';`,
    );
    this.addSql(
      `create index "channel_resource_property_withdrawn" on "channel_resource" ("internal_id") where "kind" = 'property' and "status" = 'withdrawn';`,
    );
    // Costly to call (it walks the JSON): declared so, the planner reads the index rather than
    // calling it on every property, which it would otherwise judge cheaper on a small table. The
    // index is written at once (no pending list), as every overview page reads it and properties
    // change rarely.
    this
      .addSql(`create function "legal_valid_until_dates"("legal" jsonb) returns text[] immutable language sql cost 1000 as $$ select coalesce(array_agg(d) filter (where d is not null), '{}') from (
    select legal->'classification'->>'valid_until' as d
    union all
    select i->>'valid_until' from jsonb_array_elements(case when jsonb_typeof(legal->'identifiers') = 'array' then legal->'identifiers' else '[]'::jsonb end) i
  ) dates $$;`);
    this.addSql(
      `create index "property_legal_valid_until" on "property" using gin ("legal_valid_until_dates"("content"->'legal')) with (fastupdate = off);`,
    );
  }
}
