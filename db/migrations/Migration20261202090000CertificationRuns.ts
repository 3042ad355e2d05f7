import { Migration } from '@mikro-orm/migrations';

/**
 * A sandbox certification run's report (db/certification-runs.ts): read by id, by channel newest
 * first (`certification_run_channel`), all channels newest first for the operator
 * (`certification_run_started`); at most one run of a channel running at a time
 * (`certification_run_running`, partial unique). Reports are kept: nothing prunes them.
 */
export class Migration20261202090000CertificationRuns extends Migration {
  override up(): void {
    this.addSql(
      `create table if not exists "certification_run" ("id" varchar(40) not null, "channel_id" uuid not null, "webhook_id" varchar(40) not null, "state" varchar(10) not null, "step" varchar(500) null, "hand_off" jsonb null, "rows" jsonb not null, "started_at" timestamptz not null, "finished_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index if not exists "certification_run_channel" on "certification_run" ("channel_id", "started_at");`,
    );
    this.addSql(`create index if not exists "certification_run_started" on "certification_run" ("started_at");`);
    this.addSql(
      `create unique index if not exists "certification_run_running" on "certification_run" ("channel_id") where "state" = 'running';`,
    );
  }
}
