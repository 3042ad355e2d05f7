import { Migration } from '@mikro-orm/migrations';

/**
 * The channel's log row remembers which transaction stamped last, so each new transaction takes a
 * stamp strictly later than the one before it while one transaction's repeated locks keep theirs
 * (`withChannelLog`).
 */
export class Migration20261128090000ChannelLogTransaction extends Migration {
  override up(): void {
    this.addSql('alter table "channel_log" add "last_xact" xid8 null;');
  }
}
