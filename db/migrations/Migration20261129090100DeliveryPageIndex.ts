import { Migration } from '@mikro-orm/migrations';

/**
 * An endpoint's deliveries are paged newest first by `(created_at, id)`, and one dispatch makes
 * many deliveries with one `created_at`: an index that stops at `created_at` leaves the page to
 * read and sort the whole group below its position. With `id` in the index the page starts at its
 * position and reads its rows only. The index it supersedes is dropped: every read it served (by
 * endpoint, by endpoint and creation) is served by this one's leading columns. An operator with
 * many deliveries may build it beforehand, concurrently (docs/operations.md, PostgreSQL); the
 * migration then finds it.
 */
export class Migration20261129090100DeliveryPageIndex extends Migration {
  override up(): void {
    this.addSql(
      'create index if not exists "webhook_delivery_endpoint_id_created_at_id_index" on "webhook_delivery" ("endpoint_id", "created_at", "id");',
    );
    this.addSql('drop index if exists "webhook_delivery_endpoint_id_created_at_index";');
  }
}
