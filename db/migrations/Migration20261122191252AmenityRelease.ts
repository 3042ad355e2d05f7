import { Migration } from '@mikro-orm/migrations';

export class Migration20261122191252AmenityRelease extends Migration {
  override up(): void {
    this.addSql(
      'create table "amenity_release" ("code" varchar(64) not null, "status" text not null, "version" int not null, "updated_at" timestamptz not null, primary key ("code"));',
    );
    this.addSql(
      'alter table "amenity_release" add constraint "amenity_release_status_check" check ("status" in (\'active\', \'deleted\'));',
    );
  }
}
