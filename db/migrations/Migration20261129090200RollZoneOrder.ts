import { Migration } from '@mikro-orm/migrations';

/**
 * The daily roll takes a zone's properties in batches, by id from where the last batch ended
 * (db/availability.ts, `rollZoneBatch`): an index by zone then property answers each batch from
 * its position instead of sorting the whole zone again. It replaces the index by zone alone,
 * whose reads (the zones in use) it serves by its leading column.
 */
export class Migration20261129090200RollZoneOrder extends Migration {
  override up(): void {
    this.addSql('create index "ari_property_zone_order" on "ari_property" ("timezone", "property_id");');
    this.addSql('drop index "ari_property_timezone_index";');
  }
}
