import { Migration } from '@mikro-orm/migrations';

/**
 * The progress of the certificate-expiry catch-up (workflows/certificate-expiry-catch-up.ts), one
 * row per task queue, which the worker's metrics read on scrape: how many properties the pass
 * under way has still to visit, and when a pass last finished. The pass reads `property` by its
 * primary key, a batch at a time, and tells the dated properties of a batch apart as it reads them,
 * so it needs no index of its own: a batch reads its rows whatever the catalogue holds.
 */
export class Migration20261129090400CertificateExpiryCatchUp extends Migration {
  override up(): void {
    this.addSql(
      `create table if not exists "certificate_expiry_catch_up" ("task_queue" varchar(255) not null, "remaining" int not null, "started_at" timestamptz not null, "finished_at" timestamptz null, primary key ("task_queue"));`,
    );
  }
}
