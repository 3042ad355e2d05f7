import { Migration } from '@mikro-orm/migrations';

export class Migration20261122204903ListingReports extends Migration {
  override up(): void {
    this.addSql(
      'create table "listing_stat" ("channel_id" uuid not null, "property_id" uuid not null, "day" date not null, "views" int not null, "clicks_to_booking" int not null, "received_at" timestamptz not null, primary key ("channel_id", "property_id", "day"));',
    );
    this.addSql('create index "listing_stat_by_property" on "listing_stat" ("property_id", "day");');
    this.addSql(
      'create table "listing_report_change" ("seq" bigserial primary key, "channel_id" uuid not null, "property_id" uuid not null, "status" varchar(40) not null, "public_url" varchar(2048) null, "promoted" boolean not null, "promoted_until" timestamptz null, "rejection_reason" varchar(40) null, "rejection_text" text null, "received_at" timestamptz not null);',
    );
    this.addSql(
      'create index "listing_report_change_by_property" on "listing_report_change" ("property_id", "channel_id", "seq");',
    );
    this.addSql(
      'create table "listing_report" ("channel_id" uuid not null, "property_id" uuid not null, "status" varchar(40) not null, "public_url" varchar(2048) null, "promoted" boolean not null, "promoted_until" timestamptz null, "rejection_reason" varchar(40) null, "rejection_text" text null, "updated_at" timestamptz not null, "received_at" timestamptz not null, primary key ("channel_id", "property_id"));',
    );
    this.addSql('create index "listing_report_property_id_index" on "listing_report" ("property_id");');
    this.addSql(
      'alter table "listing_stat" add constraint "listing_stat_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "listing_stat" add constraint "listing_stat_property_id_foreign" foreign key ("property_id") references "property" ("id") on delete cascade;',
    );
    this.addSql(
      'alter table "listing_report_change" add constraint "listing_report_change_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "listing_report_change" add constraint "listing_report_change_property_id_foreign" foreign key ("property_id") references "property" ("id") on delete cascade;',
    );
    this.addSql(
      'alter table "listing_report" add constraint "listing_report_channel_id_foreign" foreign key ("channel_id") references "channel" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "listing_report" add constraint "listing_report_property_id_foreign" foreign key ("property_id") references "property" ("id") on update cascade on delete cascade;',
    );
  }
}
