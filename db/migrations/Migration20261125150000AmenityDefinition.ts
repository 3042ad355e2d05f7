import { Migration } from '@mikro-orm/migrations';

export class Migration20261125150000AmenityDefinition extends Migration {
  override up(): void {
    this.addSql('alter table "amenity_release" add column "definition" text null;');
  }
}
