import { Migration } from '@mikro-orm/migrations';

/**
 * Counters are rewritten on every authenticated request: unlogged, a count is one in-memory
 * upsert whose commit waits for no WAL flush. A crash empties the table, which forgives at most
 * the current minute of every client.
 */
export class Migration20261122193000RequestCounterUnlogged extends Migration {
  override up(): void {
    this.addSql('alter table "request_counter" set unlogged;');
  }
}
