import { Migration } from '@mikro-orm/migrations';

export class Migration20261122025508Catalogue extends Migration {
  override up(): void {
    this.addSql(
      'create table "channel_id" ("channel_id" uuid not null, "kind" varchar(16) not null, "internal_key" varchar(120) not null, "external_id" varchar(40) not null, primary key ("channel_id", "kind", "internal_key"));',
    );
    this.addSql('alter table "channel_id" add constraint "channel_id_external_id_unique" unique ("external_id");');
    this.addSql(
      'create table "channel_log" ("channel_id" uuid not null, "last_stamp" timestamptz not null, "last_position" bigint not null, primary key ("channel_id"));',
    );
    this.addSql(
      'create table "channel_resource" ("channel_id" uuid not null, "kind" varchar(16) not null, "internal_id" uuid not null, "external_id" varchar(40) not null, "status" text not null, "version" bigint not null, "updated_at" timestamptz not null, "body" json not null, "location_id" uuid null, "owner_id" uuid null, primary key ("channel_id", "kind", "internal_id"));',
    );
    this.addSql(
      'alter table "channel_resource" add constraint "channel_resource_external_id_unique" unique ("external_id");',
    );
    this.addSql(
      'create index "channel_resource_channel_id_kind_updated_at_external_id_index" on "channel_resource" ("channel_id", "kind", "updated_at", "external_id");',
    );
    this.addSql(
      'create index "channel_resource_channel_id_location_id_index" on "channel_resource" ("channel_id", "location_id");',
    );
    this.addSql(
      'create index "channel_resource_channel_id_owner_id_index" on "channel_resource" ("channel_id", "owner_id");',
    );
    this.addSql(
      'create table "event" ("channel_id" uuid not null, "position" bigint not null, "id" varchar(40) not null, "type" varchar(60) not null, "occurred_at" timestamptz not null, "data" json not null, primary key ("channel_id", "position"));',
    );
    this.addSql('alter table "event" add constraint "event_id_unique" unique ("id");');
    this.addSql('create index "event_occurred_at_index" on "event" ("occurred_at");');
    this.addSql(
      'create table "organization" ("id" uuid not null, "ref" varchar(64) not null, "name" varchar(200) not null, "country" varchar(2) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));',
    );
    this.addSql('alter table "organization" add constraint "organization_ref_unique" unique ("ref");');
    this.addSql(
      'create table "owner" ("id" uuid not null, "ref" varchar(64) not null, "organization_id" uuid not null, "content" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));',
    );
    this.addSql('alter table "owner" add constraint "owner_ref_unique" unique ("ref");');
    this.addSql('create index "owner_organization_id_index" on "owner" ("organization_id");');
    this.addSql(
      'create table "location" ("id" uuid not null, "ref" varchar(64) not null, "organization_id" uuid not null, "owner_id" uuid not null, "content" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));',
    );
    this.addSql('alter table "location" add constraint "location_ref_unique" unique ("ref");');
    this.addSql('create index "location_organization_id_index" on "location" ("organization_id");');
    this.addSql('create index "location_owner_id_index" on "location" ("owner_id");');
    this.addSql(
      'create table "property" ("id" uuid not null, "ref" varchar(64) not null, "location_id" uuid not null, "owner_id" uuid not null, "content" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));',
    );
    this.addSql('alter table "property" add constraint "property_ref_unique" unique ("ref");');
    this.addSql('create index "property_location_id_index" on "property" ("location_id");');
    this.addSql('create index "property_owner_id_index" on "property" ("owner_id");');
    this.addSql(
      'create table "distribution" ("property_id" uuid not null, "channel_id" uuid not null, "created_at" timestamptz not null, primary key ("property_id", "channel_id"));',
    );
    this.addSql('create index "distribution_channel_id_index" on "distribution" ("channel_id");');
    this.addSql(
      'alter table "channel_id" add constraint "channel_id_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "channel_log" add constraint "channel_log_channel_id_foreign" foreign key ("channel_id") references "channel" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "channel_resource" add constraint "channel_resource_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      "alter table \"channel_resource\" add constraint \"channel_resource_status_check\" check (\"status\" in ('active', 'inactive', 'withdrawn', 'deleted'));",
    );
    this.addSql(
      'alter table "event" add constraint "event_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "owner" add constraint "owner_organization_id_foreign" foreign key ("organization_id") references "organization" ("id");',
    );
    this.addSql(
      'alter table "location" add constraint "location_organization_id_foreign" foreign key ("organization_id") references "organization" ("id");',
    );
    this.addSql(
      'alter table "location" add constraint "location_owner_id_foreign" foreign key ("owner_id") references "owner" ("id");',
    );
    this.addSql(
      'alter table "property" add constraint "property_location_id_foreign" foreign key ("location_id") references "location" ("id");',
    );
    this.addSql(
      'alter table "property" add constraint "property_owner_id_foreign" foreign key ("owner_id") references "owner" ("id");',
    );
    this.addSql(
      'alter table "distribution" add constraint "distribution_property_id_foreign" foreign key ("property_id") references "property" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "distribution" add constraint "distribution_channel_id_foreign" foreign key ("channel_id") references "channel" ("id") on update cascade on delete cascade;',
    );
  }
}
