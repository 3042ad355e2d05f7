import { Migration } from '@mikro-orm/migrations';

export class Migration20261122031938Webhooks extends Migration {
  override up(): void {
    this.addSql(
      'create table "dispatch_progress" ("channel_id" uuid not null, "position" bigint not null, primary key ("channel_id"));',
    );
    this.addSql(
      'create table "webhook_endpoint" ("id" varchar(40) not null, "channel_id" uuid not null, "url" varchar(2048) not null, "events" text[] not null, "description" varchar(500) null, "status" text not null, "suspended_reason" text null, "secret" text null, "previous_secret" text null, "previous_secret_expires_at" timestamptz null, "secret_generation" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));',
    );
    this.addSql('create index "webhook_endpoint_channel_id_index" on "webhook_endpoint" ("channel_id");');
    this.addSql(
      'create table "webhook_delivery" ("id" varchar(40) not null, "endpoint_id" varchar(40) not null, "event_id" varchar(40) not null, "event_type" varchar(60) not null, "payload" text not null, "state" text not null, "attempts" int not null, "created_at" timestamptz not null, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, "completed_at" timestamptz null, primary key ("id"));',
    );
    this.addSql('create index "webhook_delivery_created_at_index" on "webhook_delivery" ("created_at");');
    this.addSql(
      'create index "webhook_delivery_endpoint_id_created_at_index" on "webhook_delivery" ("endpoint_id", "created_at");',
    );
    this.addSql(
      'alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_event_id_unique" unique ("endpoint_id", "event_id");',
    );
    this.addSql(
      'create table "webhook_attempt" ("delivery_id" varchar(40) not null, "number" int not null, "attempted_at" timestamptz not null, "status_code" int null, "duration_ms" int not null, "error" varchar(500) null, "response_excerpt" varchar(1024) null, primary key ("delivery_id", "number"));',
    );
    this.addSql(
      'alter table "dispatch_progress" add constraint "dispatch_progress_channel_id_foreign" foreign key ("channel_id") references "channel" ("id") on update cascade on delete cascade;',
    );
    this.addSql(
      'alter table "webhook_endpoint" add constraint "webhook_endpoint_channel_id_foreign" foreign key ("channel_id") references "channel" ("id");',
    );
    this.addSql(
      'alter table "webhook_endpoint" add constraint "webhook_endpoint_status_check" check ("status" in (\'active\', \'inactive\', \'deleted\'));',
    );
    this.addSql(
      'alter table "webhook_endpoint" add constraint "webhook_endpoint_suspended_reason_check" check ("suspended_reason" in (\'failing\', \'gone\'));',
    );
    this.addSql(
      'alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoint" ("id");',
    );
    this.addSql(
      "alter table \"webhook_delivery\" add constraint \"webhook_delivery_state_check\" check (\"state\" in ('pending', 'delivered', 'failed', 'cancelled'));",
    );
    this.addSql(
      'alter table "webhook_attempt" add constraint "webhook_attempt_delivery_id_foreign" foreign key ("delivery_id") references "webhook_delivery" ("id") on delete cascade;',
    );
  }
}
