import { Migration } from '@mikro-orm/migrations';

export class Migration20261122034457WebhooksSuspendedByPlatform extends Migration {
  override up(): void {
    this.addSql('alter table "channel" add "webhooks_suspended_at" timestamptz null;');
  }
}
