import { Migration } from '@mikro-orm/migrations';

/**
 * A sandbox key's own request log (db/sandbox-requests.ts): read by channel newest first
 * (`sandbox_request_page`), pruned oldest first (`sandbox_request_received`). Written only by a
 * sandbox deployment; a production one keeps the table empty.
 */
export class Migration20261201090000SandboxRequests extends Migration {
  override up(): void {
    this.addSql(
      `create table if not exists "sandbox_request" ("id" bigserial primary key, "channel_id" uuid not null, "key_id" varchar(40) not null, "request_id" varchar(64) not null, "method" varchar(10) not null, "path" varchar(1024) not null, "status" smallint not null, "code" varchar(60) null, "units" int not null, "duration_ms" int not null, "received_at" timestamptz not null);`,
    );
    this.addSql(
      `create index if not exists "sandbox_request_page" on "sandbox_request" ("channel_id", "received_at", "id");`,
    );
    this.addSql(`create index if not exists "sandbox_request_received" on "sandbox_request" ("received_at");`);
  }
}
