import { Migration } from '@mikro-orm/migrations';

/**
 * The listings overview's "to act on" names every listing a channel rejected: the few reports
 * whose state is `rejected`, found by this index rather than by reading every report (as the
 * properties withdrawn somewhere are, HostOverviewIndexes).
 */
export class Migration20261129092000ListingReportRejected extends Migration {
  override up(): void {
    this.addSql(
      `create index if not exists "listing_report_rejected" on "listing_report" ("property_id", "channel_id") where "status" = 'rejected';`,
    );
  }
}
