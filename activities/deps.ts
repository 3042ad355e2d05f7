import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import type { Mailer } from '../infra/mailer.ts';
import type { WebhookSender } from '../infra/webhook-sender.ts';

export interface ActivityDeps {
  orm: MikroORM;
  clock: Clock;
  log: Logger;
  /** The client activities start and cancel workflows with (the dispatcher, endpoint suspension). */
  temporal: () => Promise<Client>;
  /** The task queue the worker serves; workflows started by activities go to it. */
  taskQueue: string;
  webhookSender: WebhookSender;
  mailer: Mailer;
}
