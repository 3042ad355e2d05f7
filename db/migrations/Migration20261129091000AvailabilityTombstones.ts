import { Migration } from '@mikro-orm/migrations';

/**
 * With `updated_since`, `GET /availability` lists a withdrawn or deleted property as a tombstone
 * (db/availability-candidates.ts). A withdrawn property's tombstone is numbered past its
 * availability's version; a deleted one's `ari_property` row goes with the property, so its last
 * version is kept here by a trigger, whoever deletes it. Properties deleted before this migration
 * have none: their tombstones carry the catalogue tombstone's version. A partial index orders a
 * channel's property tombstones by stamp, so the listing reads them apart from the properties the
 * channel still sees.
 */
export class Migration20261129091000AvailabilityTombstones extends Migration {
  override up(): void {
    this.addSql(
      'create table "ari_property_gone" ("property_id" uuid not null, "version" bigint not null, primary key ("property_id"));',
    );
    this.addSql(`create function "ari_property_gone_fn"() returns trigger language plpgsql as $$
begin
  insert into ari_property_gone (property_id, version) values (old.property_id, old.version)
    on conflict (property_id) do update set version = greatest(ari_property_gone.version, excluded.version);
  return null;
end $$;`);
    this.addSql(
      'create trigger "ari_property_gone" after delete on "ari_property" for each row execute function "ari_property_gone_fn"();',
    );
    // The tombstones of a channel's view in stamp order: the listing reads them without the properties it still sees.
    this.addSql(
      `create index "channel_resource_property_tombstone_order" on "channel_resource" ("channel_id", "updated_at", "internal_id") where "kind" = 'property' and "status" in ('withdrawn', 'deleted');`,
    );
  }
}
