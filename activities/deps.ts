import type { MikroORM } from '@mikro-orm/postgresql';
import type { ServiceConfig } from '../app/config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import type { Mailer } from '../infra/mailer.ts';
import type { ServiceSecrets } from '../infra/secrets.ts';
import type { WebhookSender } from '../infra/webhook-sender.ts';
import type { WorkflowClient } from '../services/workflow-client.ts';

export interface ActivityDeps {
  orm: MikroORM;
  clock: Clock;
  log: Logger;
  /** Starts and cancels workflows (deliveries from the dispatcher, cancellations on suspension). */
  workflows: WorkflowClient;
  webhookSender: WebhookSender;
  /** The server secret keys the approximate points a re-projection writes. */
  secrets: ServiceSecrets;
  mailer: Mailer;
  /** The deployment's environment: sandbox-only activities (the catalogue's churn) refuse in production. */
  environment: 'sandbox' | 'production';
  /**
   * The deployment's configuration: a certification run's activities trigger events, issue
   * owner-connect tokens (its origin, hand-off limits) and send probes (webhook transport settings).
   * A worker given none refuses certification runs.
   */
  config?: ServiceConfig;
}
