import { Migration } from '@mikro-orm/migrations';

/**
 * A sandbox endpoint's fast retries: its deliveries run the retry schedule this many times faster
 * (domain/webhooks/time-factor.ts). 1 everywhere else; production never sets another value.
 */
export class Migration20261130100000EndpointTimeFactor extends Migration {
  override up(): void {
    this.addSql('alter table "webhook_endpoint" add column if not exists "time_factor" int not null default 1;');
  }
}
