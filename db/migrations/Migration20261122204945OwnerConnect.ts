import { Migration } from '@mikro-orm/migrations';

export class Migration20261122204945OwnerConnect extends Migration {
  override up(): void {
    this.addSql(
      'create table "owner_connection" ("channel_id" uuid not null, "owner_id" uuid not null, "connected_at" timestamptz not null, "jti" varchar(32) not null, primary key ("channel_id", "owner_id"));',
    );
    this.addSql(
      'create table "owner_connect_token" ("jti" varchar(32) not null, "channel_id" uuid not null, "owner_id" uuid not null, "owner_external_id" varchar(40) not null, "property_ids" jsonb not null, "issued_at" timestamptz not null, "confirm_until" timestamptz not null, "state" text not null, "connected_at" timestamptz null, primary key ("jti"));',
    );
    this.addSql('create index "owner_connect_token_channel_id_index" on "owner_connect_token" ("channel_id");');
    this.addSql('create index "owner_connect_token_owner_id_index" on "owner_connect_token" ("owner_id");');
    this.addSql(
      'alter table "owner_connection" add constraint "owner_connection_channel_id_foreign" foreign key ("channel_id") references "channel" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "owner_connection" add constraint "owner_connection_owner_id_foreign" foreign key ("owner_id") references "owner" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "owner_connect_token" add constraint "owner_connect_token_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "owner_connect_token" add constraint "owner_connect_token_owner_id_foreign" foreign key ("owner_id") references "owner" ("id") on delete cascade;',
    );
    this.addSql(
      "alter table \"owner_connect_token\" add constraint \"owner_connect_token_state_check\" check (\"state\" in ('waiting', 'confirmed', 'expired', 'revoked'));",
    );
  }
}
