import { Migration } from '@mikro-orm/migrations';

export class Migration20261122204907OwnerConnectKeys extends Migration {
  override up(): void {
    this.addSql(
      'create table "owner_connect_key" ("kid" varchar(64) not null, "public_jwk" text not null, "private_jwk" text null, "created_at" timestamptz not null, "published_at" timestamptz not null, "activated_at" timestamptz null, "retired_at" timestamptz null, "unpublished_at" timestamptz null, "signed_at_once" text null, "compromised_at" timestamptz null, "private_destroyed_at" timestamptz null, primary key ("kid"));',
    );
    this.addSql(
      'alter table "owner_connect_key" add constraint "owner_connect_key_signed_at_once_check" check ("signed_at_once" in (\'bootstrap\', \'emergency\'));',
    );
  }
}
