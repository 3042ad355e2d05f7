import { Migration } from '@mikro-orm/migrations';

export class Migration20261122204906HostSessions extends Migration {
  override up(): void {
    this.addSql(
      'create table "host_session" ("id" uuid not null, "secret_hash" varchar(64) not null, "organization_id" uuid not null, "locale" varchar(8) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "ended_at" timestamptz null, primary key ("id"));',
    );
    this.addSql('alter table "host_session" add constraint "host_session_secret_hash_unique" unique ("secret_hash");');
    this.addSql('create index "host_session_organization_id_index" on "host_session" ("organization_id");');
    this.addSql(
      'create table "host_link" ("id" uuid not null, "token_hash" varchar(64) not null, "organization_id" uuid not null, "locale" varchar(8) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));',
    );
    this.addSql('alter table "host_link" add constraint "host_link_token_hash_unique" unique ("token_hash");');
    this.addSql('create index "host_link_organization_id_index" on "host_link" ("organization_id");');
    this.addSql(
      'alter table "host_session" add constraint "host_session_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;',
    );
    this.addSql(
      'alter table "host_link" add constraint "host_link_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;',
    );
  }
}
