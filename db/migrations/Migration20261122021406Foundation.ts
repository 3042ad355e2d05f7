import { Migration } from '@mikro-orm/migrations';

export class Migration20261122021406Foundation extends Migration {
  override up(): void {
    this.addSql(
      'create table "channel" ("id" uuid not null, "name" varchar(64) not null, "status" text not null default \'active\', "rate_limit_per_minute" int not null, "redirect_url" text null, "technical_contact_email" varchar(254) null, "created_at" timestamptz not null, "suspended_at" timestamptz null, primary key ("id"));',
    );
    this.addSql('alter table "channel" add constraint "channel_name_unique" unique ("name");');
    this.addSql(
      'create table "api_key" ("id" varchar(40) not null, "channel_id" uuid not null, "environment" text not null, "secret_hash" varchar(64) not null, "last4" varchar(4) not null, "scopes" text[] not null, "created_at" timestamptz not null, "expires_at" timestamptz null, "expired_at" timestamptz null, "revoked_at" timestamptz null, "last_used_at" timestamptz null, primary key ("id"));',
    );
    this.addSql('create index "api_key_channel_id_index" on "api_key" ("channel_id");');
    this.addSql('alter table "api_key" add constraint "api_key_secret_hash_unique" unique ("secret_hash");');
    this.addSql(
      'create table "request_counter" ("bucket" varchar(120) not null, "window_start" timestamptz not null, "count" int not null, primary key ("bucket", "window_start"));',
    );
    this.addSql(
      'alter table "channel" add constraint "channel_status_check" check ("status" in (\'active\', \'suspended\'));',
    );
    this.addSql(
      'alter table "api_key" add constraint "api_key_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "api_key" add constraint "api_key_environment_check" check ("environment" in (\'sandbox\', \'production\'));',
    );
  }
}
