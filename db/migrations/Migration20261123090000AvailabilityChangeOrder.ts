import { Migration } from '@mikro-orm/migrations';

/** Availability is listed by `(updated_at, property_id)`: a page is a range of this index. */
export class Migration20261123090000AvailabilityChangeOrder extends Migration {
  override up(): void {
    this.addSql('create index "ari_property_change_order" on "ari_property" ("updated_at", "property_id");');
  }
}
