import { Migration } from '@mikro-orm/migrations';

export class Migration20261122185301Integration extends Migration {
  override up(): void {
    this.addSql(
      'create table "installation" ("id" uuid not null, "organization_id" uuid not null, "app" varchar(64) not null, "scopes" text[] not null, "status" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));',
    );
    this.addSql('create index "installation_organization_id_index" on "installation" ("organization_id");');
    this.addSql(
      'alter table "installation" add constraint "installation_organization_id_app_unique" unique ("organization_id", "app");',
    );
    this.addSql(
      'create table "integration_token" ("id" uuid not null, "installation_id" uuid not null, "secret_hash" varchar(64) not null, "last4" varchar(4) not null, "scopes" text[] not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));',
    );
    this.addSql(
      'alter table "integration_token" add constraint "integration_token_secret_hash_unique" unique ("secret_hash");',
    );
    this.addSql(
      'create unique index "integration_token_one_live_per_installation" on "integration_token" ("installation_id") where revoked_at is null;',
    );
    this.addSql(
      'create table "guest" ("id" uuid not null, "ref" varchar(64) not null, "seq" bigserial, "organization_id" uuid not null, "first_name" varchar(100) not null, "last_name" varchar(100) not null, "email" varchar(254) not null, "phone" varchar(16) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));',
    );
    this.addSql('alter table "guest" add constraint "guest_ref_unique" unique ("ref");');
    this.addSql('create index "guest_newest_first" on "guest" ("organization_id", "created_at", "seq");');
    this.addSql(
      'alter table "installation" add constraint "installation_organization_id_foreign" foreign key ("organization_id") references "organization" ("id");',
    );
    this.addSql(
      'alter table "installation" add constraint "installation_status_check" check ("status" in (\'active\', \'disabled\', \'error\'));',
    );
    this.addSql(
      'alter table "integration_token" add constraint "integration_token_installation_id_foreign" foreign key ("installation_id") references "installation" ("id") on delete cascade;',
    );
    this.addSql(
      'alter table "guest" add constraint "guest_organization_id_foreign" foreign key ("organization_id") references "organization" ("id");',
    );
  }
}
