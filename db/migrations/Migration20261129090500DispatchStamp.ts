import { Migration } from '@mikro-orm/migrations';

/**
 * The dispatcher keeps the stamp of the last event it dispatched beside its position: every event
 * after that position is stamped no earlier, so its read of the log names the days from there
 * (the log is partitioned by day, db/partitions.ts) instead of planning and probing every day.
 * Null until its next dispatch: that read is unbounded once.
 */
export class Migration20261129090500DispatchStamp extends Migration {
  override up(): void {
    this.addSql('alter table "dispatch_progress" add column if not exists "stamp" timestamptz null;');
  }
}
