import { Migration } from '@mikro-orm/migrations';

/**
 * A page of a channel's events costs what the end of its log costs, however long the log
 * (db/catalogue/reads.ts `listEvents`):
 * - the first page (no cursor) starts at the channel's first event of the last 35 days, found by
 *   one probe of `(channel_id, occurred_at, position)` rather than by filtering every older event
 *   the sweep has not dropped yet;
 * - a key with one of the two event scopes walks only the events it may read: `read:ari`'s
 *   `availability.updated` in one partial index, every other type (`read:catalog`'s) in the other,
 *   each by position. A row goes into one of them, so together they weigh one index of the log.
 */
export class Migration20261129090300EventPageIndexes extends Migration {
  override up(): void {
    this.addSql(
      `create index if not exists "event_channel_occurred_at" on "event" ("channel_id", "occurred_at", "position");`,
    );
    this.addSql(
      `create index if not exists "event_ari_position" on "event" ("channel_id", "position") where "type" = 'availability.updated';`,
    );
    this.addSql(
      `create index if not exists "event_catalog_position" on "event" ("channel_id", "position") where "type" <> 'availability.updated';`,
    );
  }
}
