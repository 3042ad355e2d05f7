import { Migration } from '@mikro-orm/migrations';

export class Migration20261122185025EndpointResumePosition extends Migration {
  override up(): void {
    this.addSql('alter table "webhook_endpoint" add "resume_after_position" bigint not null default \'0\';');
    // Endpoints registered before: from where the channel's dispatch stands now.
    this.addSql(
      'update "webhook_endpoint" e set "resume_after_position" = p."position" from "dispatch_progress" p where p."channel_id" = e."channel_id";',
    );
  }
}
