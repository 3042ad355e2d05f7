import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { createActivities } from '../../activities/index.ts';
import type { CatchUpBatch, CatchUpStep } from '../../activities/certificate-expiry.ts';
import { watchWorkerDatabase } from '../../app/observability.ts';
import { WORKFLOW_CODE, workflowSinks } from '../../app/worker.ts';
import { systemClock } from '../../domain/clock.ts';
import { registry } from '../../infra/metrics.ts';
import { createWorkflowClient, type WorkflowClient } from '../../services/workflow-client.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { freePort } from '../../scripts/chaos/servers.ts';
import { startServiceProcess, waitForLog } from '../../scripts/chaos/service.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET } from '../support/api.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import { onCleanup } from '../support/cleanup.ts';
import { cloneProperty, templateOf } from '../support/clones.ts';
import { sample, scrape } from '../support/metrics.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { recordHistory } from '../support/time-skipping.ts';
import { activityDeps } from '../support/worker.ts';

// The certificate-expiry catch-up on the run's Temporal dev server against a real Postgres: a pass
// over the properties by id starts the workflows that are missing, says on the worker's metrics
// what it has left, and a pass whose worker was lost goes on after its last batch. A worker's
// start (scripts/worker.ts, a real process) only asks for the pass: it does not wait for it.

const BATCH = 100;

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;
let temporal: Client;
let taskQueue: string;
let workflows: WorkflowClient;
let connection: NativeConnection;
let code: string;
let databaseUrl: string;

beforeAll(async () => {
  const bed = await apiTestBed({ taskQueue: 'catch-up', clock: systemClock, env: { HORIZON_ROLLS_FROM_API: 'false' } });
  ({ orm, ctx, host, temporal, databaseUrl } = bed);
  taskQueue = bed.taskQueue!;
  workflows = createWorkflowClient({ connect: () => Promise.resolve(temporal), taskQueue, dispatchPollSeconds: 30 });
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  onCleanup(() => connection.close());
  ({ code } = await bundleWorkflowCode({ ...WORKFLOW_CODE, logger: new DefaultLogger('WARN') }));
  onCleanup(watchWorkerDatabase(orm, systemClock));
});

type Activities = ReturnType<typeof createActivities>;

/** A worker on the file's task queue with the service's activities, `wrap` over them; stopped by `stop`. */
async function startWorker(wrap: (real: Activities) => Partial<Activities> = () => ({})) {
  const real = createActivities(activityDeps(orm, { client: temporal, taskQueue }));
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { code },
    sinks: workflowSinks(),
    activities: { ...real, ...wrap(real) },
  });
  const running = worker.run();
  const stop = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  };
  onCleanup(stop);
  return { stop };
}

/**
 * `count` properties shown to a fresh channel, each with a classification valid for 5 more years:
 * the first written through the API (so its workflow runs), the others copied in SQL (none).
 */
async function catalogue(count: number) {
  const { ref } = await channelShown(ctx, host, ['t']);
  const template = await templateOf(orm.em.fork(), ref('t'));
  await cloneProperty(orm.em.fork(), template, 1, count - 1, { nights: false });
  const copies = await orm.em
    .fork()
    .execute<{ id: string }[]>('select id from property where ref like ? order by id', [`${ref('t')}-%`]);
  return { written: template, copies, prefix: ref('t').slice(0, -'-t'.length) };
}

/** The run of a property's certificate-expiry workflow, or null when it has none. */
async function expiryRun(propertyId: string): Promise<{ runId: string; status: string } | null> {
  try {
    const described = await temporal.workflow.getHandle(workflowIds.certificateExpiry(propertyId)).describe();
    return { runId: described.runId, status: described.status.name };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

/** The catch-up's gauges of the file's task queue, read as a scrape reads them. */
async function progress(): Promise<{ remaining: number | undefined; finishedAt: number | undefined }> {
  const text = await registry.metrics();
  return {
    remaining: sample(text, 'svc_certificate_expiry_catch_up_remaining_properties', { task_queue: taskQueue }),
    finishedAt: sample(text, 'svc_certificate_expiry_catch_up_finished_timestamp_seconds', { task_queue: taskQueue }),
  };
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const passResult = () => temporal.workflow.getHandle(workflowIds.certificateExpiryCatchUp(taskQueue)).result();

/** The catch-up's gauges of `queue` as the worker process at `url` serves them. */
async function scrapedProgress(url: string, queue: string) {
  const text = await scrape(url);
  return {
    remaining: sample(text, 'svc_certificate_expiry_catch_up_remaining_properties', { task_queue: queue }),
    finishedAt: sample(text, 'svc_certificate_expiry_catch_up_finished_timestamp_seconds', { task_queue: queue }),
  };
}

describe('certificate-expiry catch-up', () => {
  test('a pass starts the workflow of each property with an end date ahead that has none, leaves a running one as it is, and its gauges say it finished', async () => {
    const {
      written,
      copies: [lapsed, ...copies],
    } = await catalogue(250);
    const before = await expiryRun(written.id);
    expect(before).not.toBeNull();
    expect(await expiryRun(copies[0]!.id)).toBeNull();
    // One copy's certificate lapsed long ago: nothing ahead to watch.
    await orm.em
      .fork()
      .execute(
        `update property set content = jsonb_set(content, '{legal,classification,valid_until}', '"2001-01-01"') where id = ?`,
        [lapsed!.id],
      );
    expect(await progress()).toEqual({ remaining: undefined, finishedAt: undefined });

    const { stop } = await startWorker();
    const startedAt = Date.now() / 1000;
    await workflows.startCertificateExpiryCatchUp({ batchSize: BATCH });
    expect(await passResult()).toBe(250);
    await recordHistory(
      temporal.workflow.getHandle(workflowIds.certificateExpiryCatchUp(taskQueue)),
      'certificate-expiry-catch-up',
    );

    for (const property of copies) expect(await expiryRun(property.id)).toMatchObject({ status: 'RUNNING' });
    expect((await expiryRun(written.id))!.runId).toBe(before!.runId);
    expect(await expiryRun(lapsed!.id)).toBeNull();
    const { remaining, finishedAt } = await progress();
    expect(remaining).toBe(0);
    expect(finishedAt).toBeGreaterThanOrEqual(Math.floor(startedAt));
    await stop();
  });

  test('a pass whose worker is lost mid-pass goes on after its last batch on the next worker, while its gauge says what is left and platform writes still arm their workflows', async () => {
    const { written, copies, prefix } = await catalogue(300);
    const steps: { worker: string; after: string | null }[] = [];
    const batches: CatchUpBatch[] = [];
    let total = 0;
    let begun = 0;
    let lostBatchReached: () => void = () => undefined;
    const lostBatch = new Promise<void>((resolve) => (lostBatchReached = resolve));
    const recorded = (worker: string, lose: (step: number) => boolean) => (real: Activities) => ({
      async beginCertificateExpiryCatchUp() {
        begun += 1;
        total = await real.beginCertificateExpiryCatchUp();
        return total;
      },
      async catchUpCertificateExpiries(step: CatchUpStep) {
        steps.push({ worker, after: step.after });
        if (lose(steps.length)) {
          lostBatchReached();
          // The worker goes away before this batch ends: only its shutdown's cancellation ends it.
          await Context.current().cancelled;
        }
        const batch = await real.catchUpCertificateExpiries(step);
        batches.push(batch);
        return batch;
      },
    });

    const [{ n } = { n: '0' }] = await orm.em.fork().execute<{ n: string }[]>('select count(*) as n from property');
    // Two batches a run: the pass continues as new after the second, and its cursor with it.
    const first = await startWorker(recorded('first', (step) => step === 3));
    await workflows.startCertificateExpiryCatchUp({ batchSize: BATCH, batchesPerRun: 2 });
    await lostBatch;
    // Two batches done: what is left is the pass's count less them.
    expect(total).toBe(Number(n));
    expect((await progress()).remaining).toBe(total - 2 * BATCH);
    const { runId, status } = await temporal.workflow
      .getHandle(workflowIds.certificateExpiryCatchUp(taskQueue))
      .describe();
    expect(status.name).toBe('RUNNING');

    // A platform write while the pass is under way arms its property's workflow as ever.
    await host.property(`${prefix}-new`, { location: `${prefix}-loc`, owner: `${prefix}-own` });
    const [added] = await orm.em
      .fork()
      .execute<{ id: string }[]>('select id from property where ref = ?', [`${prefix}-new`]);
    expect(await expiryRun(added!.id)).toMatchObject({ status: 'RUNNING' });

    await first.stop();
    // The next worker's start asks for a pass: the one under way goes on.
    await workflows.startCertificateExpiryCatchUp({ batchSize: BATCH, batchesPerRun: 2 });
    expect((await temporal.workflow.getHandle(workflowIds.certificateExpiryCatchUp(taskQueue)).describe()).runId).toBe(
      runId,
    );
    const second = await startWorker(recorded('second', () => false));
    const visited = await passResult();

    expect(begun).toBe(1);
    const resumed = steps.filter((step) => step.worker === 'second');
    expect(resumed[0]!.after).toBe(batches[1]!.last);
    expect(resumed.every((step) => step.after !== null)).toBe(true);
    expect(steps.map((step) => step.after)).toEqual([
      null,
      batches[0]!.last,
      batches[1]!.last,
      ...batches.slice(1, -1).map((batch) => batch.last),
    ]);
    expect(visited).toBe(batches.reduce((sum, batch) => sum + batch.visited, 0));
    for (const property of [written, ...copies])
      expect(await expiryRun(property.id)).toMatchObject({ status: 'RUNNING' });
    await eventually('the pass finished', progress, (p) => p.remaining === 0);
    await second.stop();
  });

  test("a worker's start does not wait for the catch-up: the worker is up while the properties cannot be read, and its pass finishes once they can", async () => {
    const queue = uniqueTaskQueue('catch-up-start');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'catch-up-start-'));
    const metricsPort = await freePort();
    // Every read of `property` waits behind this lock until the test commits.
    const lock = new pg.Client({ connectionString: databaseUrl });
    await lock.connect();
    onCleanup(() => lock.end());
    await lock.query('begin');
    await lock.query('lock table property in access exclusive mode');
    const worker = startServiceProcess(
      'worker',
      'scripts/worker.ts',
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: databaseUrl,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: queue,
        SERVER_SECRET: TEST_SERVER_SECRET,
        PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort),
        DATA_DIR: path.join(dir, 'data'),
      },
      dir,
    );
    onCleanup(() => worker.kill('SIGTERM'));
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;

    await waitForLog(worker, '"worker running"', 90_000);
    const pass = temporal.workflow.getHandle(workflowIds.certificateExpiryCatchUp(queue));
    expect((await pass.describe()).status.name).toBe('RUNNING');
    expect(await scrapedProgress(metricsUrl, queue)).toEqual({ remaining: undefined, finishedAt: undefined });

    await lock.query('commit');
    const [{ n } = { n: '0' }] = await orm.em.fork().execute<{ n: string }[]>('select count(*) as n from property');
    expect(await pass.result()).toBe(Number(n));
    const { remaining, finishedAt } = await scrapedProgress(metricsUrl, queue);
    expect(remaining).toBe(0);
    expect(finishedAt).toBeGreaterThan(0);
  });
});
