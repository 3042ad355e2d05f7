import { Migration } from '@mikro-orm/migrations';

/**
 * The overdue-deliveries gauge finds, per endpoint, the pending delivery due earliest (its next
 * attempt's time, else its last attempt's, else its creation) with one probe of this index; it
 * holds pending deliveries only, so it stays as small as the backlog. Delivery rows are rarely
 * updated in place (HOT) already, as their pages fill with new deliveries: the index costs one
 * entry per delivery created.
 */
export class Migration20261127090000DeliveryPendingDue extends Migration {
  override up(): void {
    this.addSql(
      `create index "webhook_delivery_pending_due" on "webhook_delivery" ("endpoint_id", (coalesce("next_attempt_at", "last_attempt_at", "created_at"))) where "state" = 'pending';`,
    );
  }
}
