import { Migration } from '@mikro-orm/migrations';

/** What answering a token again needs: the language it was signed in and the host session that asked. */
export class Migration20261123120000HandOffReuse extends Migration {
  override up(): void {
    this.addSql(
      'alter table "owner_connect_token" add column "locale" varchar(35) null, add column "host_session_id" uuid null;',
    );
  }
}
