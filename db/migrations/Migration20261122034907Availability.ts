import { Migration } from '@mikro-orm/migrations';

export class Migration20261122034907Availability extends Migration {
  override up(): void {
    this.addSql(
      'create table "ari_property" ("property_id" uuid not null, "currency" varchar(3) not null, "version" bigint not null, "updated_at" timestamptz not null, "horizon_end" date not null, "timezone" varchar(64) not null, primary key ("property_id"));',
    );
    this.addSql('create index "ari_property_timezone_index" on "ari_property" ("timezone");');
    this.addSql(
      'create table "ari_night" ("property_id" uuid not null, "night" date not null, "body" text not null, primary key ("property_id", "night"));',
    );
    this.addSql(
      'alter table "ari_property" add constraint "ari_property_property_id_foreign" foreign key ("property_id") references "property" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "ari_night" add constraint "ari_night_property_id_foreign" foreign key ("property_id") references "property" ("id") on delete cascade;',
    );
  }
}
