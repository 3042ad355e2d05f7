import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../activities/deps.ts';
import { systemClock, type Clock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import { createMailer, type MailerConfig } from '../../infra/mailer.ts';
import { createWebhookSender, type WebhookSettings } from '../../infra/webhook-sender.ts';
import { createWorkflowClient } from '../../services/workflow-client.ts';
import { TEST_SERVER_SECRET } from './api.ts';
import { singleKeyRing } from '../../domain/key-ring.ts';
import { sha256 } from '../../infra/secrets.ts';

/** Activity dependencies for a test worker: the real sender and mailer, the test's secret. */
export function activityDeps(
  orm: MikroORM,
  options: { client: Client; taskQueue: string; clock?: Clock; webhooks?: WebhookSettings; mail?: MailerConfig },
): ActivityDeps {
  const clock = options.clock ?? systemClock;
  const secrets = { ring: singleKeyRing(new TextEncoder().encode(TEST_SERVER_SECRET)), platformTokenHash: sha256('unused') };
  return {
    orm,
    clock,
    log: createLogger('silent'),
    workflows: createWorkflowClient({ connect: () => Promise.resolve(options.client), taskQueue: options.taskQueue, dispatchPollSeconds: 30 }),
    webhookSender: createWebhookSender({ secrets, clock, settings: options.webhooks ?? { allowLocal: false, caFile: undefined } }),
    secrets,
    mailer: createMailer(options.mail ?? { smtpUrl: undefined, from: 'Distribution Service <no-reply@distribution.test>' }),
  };
}
