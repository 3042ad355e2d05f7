import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { createWorker } from '../../app/worker.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Logger } from '../../infra/logger.ts';
import { startTestApi, type TestApi } from './api.ts';
import { platform, type Platform } from './catalogue.ts';
import { onCleanup } from './cleanup.ts';
import { BED_INSTANT, TestClock } from './clock.ts';
import { freshDatabase } from './database.ts';
import { adminContext, channelWithKey } from './fixtures.ts';
import type { Receiver } from './receiver.ts';
import { devServerClient, uniqueTaskQueue } from './temporal.ts';
import { activityDeps } from './worker.ts';

/**
 * The set-up a test file that talks to the API shares, called from its `beforeAll`:
 *
 *   let api: TestApi;
 *   let ctx: AdminContext;
 *   beforeAll(async () => {
 *     ({ api, ctx } = await apiTestBed({ env: { HAND_OFF_SESSION_LIMIT: '3' } }));
 *   });
 *
 * A database of the file's own (`freshDatabase`), a client of the run's Temporal dev server, the
 * real app over TLS (`startTestApi`), the operator's context on the same database and clock, and
 * the platform's side (`platform`); with `worker`, a worker that runs the workflows the API
 * starts. All of it is torn down after the file's tests (cleanup.ts). A test may call it too, for
 * an API of its own on a fresh database (a lower limit, a table dropped under it). A second API
 * on the bed's database (another environment, listener or logger) is `startTestApi` with the
 * bed's `orm`, `temporal` and `clock`.
 */
export interface ApiTestBedOptions<C extends Clock> {
  /** The service's clock: a `TestClock` at {@link BED_INSTANT} unless given (`systemClock`, or a clock the file moves). */
  clock?: C;
  /** Configuration over the bed's own: AUTH_FAILURE_LIMIT 1000, since a file refuses many requests from one address. */
  env?: Record<string, string>;
  /** Where the API logs; silent unless given. */
  log?: Logger;
  /** A Temporal client other than the dev server's (a time-skipping environment's). */
  temporal?: Client;
  /** A task queue of the file's own, named from this: the API's TEMPORAL_TASK_QUEUE, the context's and the worker's. */
  taskQueue?: string;
  /** A test receiver (receiver.ts) webhooks may go to: the API and the worker allow local addresses and trust its CA. */
  receiver?: Pick<Receiver, 'caFile'>;
  /** A worker (the service's, on the dev server and the task queue) runs the workflows the API starts. */
  worker?: boolean;
  /** A database the test made itself (a restored dump) instead of a fresh clone; the test closes and drops it. */
  database?: { orm: MikroORM; url: string };
}

export interface ApiTestBed<C extends Clock> {
  api: TestApi;
  orm: MikroORM;
  databaseUrl: string;
  temporal: Client;
  clock: C;
  /** The operator's context (channels, keys, services) on the bed's database, clock and task queue. */
  ctx: AdminContext;
  /** The platform's side: /internal/v1 with the platform token. */
  host: Platform;
  taskQueue: string | undefined;
  /** A fresh channel and one key on it (`channelWithKey`). */
  channel: (options?: Parameters<typeof channelWithKey>[1]) => ReturnType<typeof channelWithKey>;
}

/** The instant a bed's clock stands at unless the file gives its own. */

export async function apiTestBed<C extends Clock = TestClock>(
  options: ApiTestBedOptions<C> = {},
): Promise<ApiTestBed<C>> {
  const { orm, url } = options.database ?? (await freshDatabase());
  const temporal = options.temporal ?? (await devServerClient());
  const clock = options.clock ?? (new TestClock(BED_INSTANT) as Clock as C);
  const taskQueue = options.taskQueue === undefined ? undefined : uniqueTaskQueue(options.taskQueue);
  const ctx = adminContext(orm, temporal, clock, taskQueue);
  const { receiver } = options;
  const api = await startTestApi({
    orm,
    temporal,
    clock,
    ...(options.log ? { log: options.log } : {}),
    env: {
      AUTH_FAILURE_LIMIT: '1000',
      ...(taskQueue ? { TEMPORAL_TASK_QUEUE: taskQueue } : {}),
      ...(receiver ? { WEBHOOK_ALLOW_LOCAL: 'true', WEBHOOK_CA_FILE: receiver.caFile } : {}),
      ...options.env,
    },
  });
  if (options.worker) {
    if (!taskQueue || options.temporal) throw new Error('a bed with a worker needs a taskQueue and the dev server');
    const webhooks = receiver ? { webhooks: { allowLocal: true, caFile: receiver.caFile } } : {};
    await runWorker(taskQueue, activityDeps(orm, { client: temporal, taskQueue, clock, ...webhooks }));
  }
  return {
    api,
    orm,
    databaseUrl: url,
    temporal,
    clock,
    ctx,
    host: platform(api),
    taskQueue,
    channel: (channelOptions) => channelWithKey(ctx, channelOptions),
  };
}

/** The service's worker on the run's dev server, stopped (and its connection closed) after the file. */
async function runWorker(taskQueue: string, deps: ReturnType<typeof activityDeps>): Promise<void> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  onCleanup(() => connection.close());
  const worker = await createWorker({ connection, namespace: 'default', taskQueue, deps });
  const running = worker.run();
  onCleanup(async () => {
    worker.shutdown();
    await running;
  });
}
