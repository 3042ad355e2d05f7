import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.ts';
import { loadConfig } from '../../app/config.ts';
import { workflowCodeOptions, workflowSinks } from '../../app/worker.ts';
import type { ActivityDeps } from '../../activities/deps.ts';
import { systemClock, type Clock } from '../../domain/clock.ts';
import { createLogger } from '../../infra/logger.ts';
import { createMailer, type MailerConfig } from '../../infra/mailer.ts';
import { createWebhookSender, type WebhookSettings } from '../../infra/webhook-sender.ts';
import { createWorkflowClient } from '../../services/workflow-client.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET } from './api.ts';
import { onCleanup } from './cleanup.ts';
import { NO_CACHE } from './worker-tuning.ts';
import { singleKeyRing } from '../../domain/key-ring.ts';
import { sha256 } from '../../infra/secrets.ts';

/** Activity dependencies for a test worker: the real sender and mailer, the test's secret. */
export function activityDeps(
  orm: MikroORM,
  options: {
    client: Client;
    taskQueue: string;
    clock?: Clock;
    webhooks?: WebhookSettings;
    mail?: MailerConfig;
    environment?: ActivityDeps['environment'];
  },
): ActivityDeps {
  const clock = options.clock ?? systemClock;
  const secrets = {
    ring: singleKeyRing(new TextEncoder().encode(TEST_SERVER_SECRET)),
    platformTokenHash: sha256('unused'),
  };
  return {
    orm,
    clock,
    log: createLogger('silent'),
    workflows: createWorkflowClient({
      connect: () => Promise.resolve(options.client),
      taskQueue: options.taskQueue,
      dispatchPollSeconds: 30,
    }),
    webhookSender: createWebhookSender({
      secrets,
      clock,
      settings: options.webhooks ?? { allowLocal: false, caFile: undefined },
    }),
    secrets,
    mailer: createMailer(
      options.mail ?? { smtpUrl: undefined, from: 'Distribution Service <no-reply@distribution.test>' },
    ),
    environment: options.environment ?? 'sandbox',
    // As the test API's (test/support/api.ts) where a run's activities meet it: the origin its
    // tokens are checked against, and the webhook transport settings.
    config: loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      SERVER_SECRET: TEST_SERVER_SECRET,
      PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
      ...(options.webhooks?.allowLocal ? { WEBHOOK_ALLOW_LOCAL: 'true' } : {}),
      ...(options.webhooks?.caFile ? { WEBHOOK_CA_FILE: options.webhooks.caFile } : {}),
    }),
  };
}

/**
 * A worker with every workflow and activity on the test's time-skipping environment.
 * `replayEveryTask`: no workflow cache, so every task replays its history, as a restarted worker
 * would; such a worker also runs one workflow task at a time. Without a cache, a second task
 * evicts a run whose local activity (a delivery attempt, a dispatcher batch) is still running:
 * the SDK core then logs "This is an SDK bug" and drops the activity's result, and the task
 * times out and runs again (test/infra/local-activity-eviction.test.ts shows it). Tests whose
 * workflows wake the dispatcher while time skips (certificate expiry, horizon roll) keep a cache:
 * one task at a time stalls them, and their stored histories are replayed in replay.test.ts.
 */
export function createTestWorker(
  env: TestWorkflowEnvironment,
  orm: MikroORM,
  options: {
    taskQueue: string;
    clock?: Clock;
    replayEveryTask?: boolean;
    webhooks?: WebhookSettings;
    mail?: MailerConfig;
  },
): Promise<Worker> {
  const { replayEveryTask, ...deps } = options;
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue: options.taskQueue,
    // The workflow code a worker runs (with its tracing interceptors), its spans dropped.
    ...workflowCodeOptions(),
    sinks: workflowSinks(),
    ...(replayEveryTask ? NO_CACHE : {}),
    activities: createActivities(activityDeps(orm, { client: env.client, ...deps })),
  });
}

/** One test worker (see `createTestWorker`) for the whole test file, so the workflow code is bundled once; stopped when the file ends. */
export async function runTestWorker(
  env: TestWorkflowEnvironment,
  orm: MikroORM,
  options: { taskQueue: string; clock?: Clock; replayEveryTask?: boolean },
): Promise<void> {
  const worker = await createTestWorker(env, orm, options);
  const running = worker.run();
  onCleanup(async () => {
    worker.shutdown();
    await running;
  });
}
