import { Migration } from '@mikro-orm/migrations';

/**
 * Each event keeps the W3C `traceparent` of the write that committed it (null when tracing is
 * off), so the dispatcher can continue that trace into the event's deliveries.
 */
export class Migration20261127100000EventTraceparent extends Migration {
  override up(): void {
    this.addSql('alter table "event" add "traceparent" text null;');
  }
}
