import type { MikroORM } from '@mikro-orm/postgresql';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { Client, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import { watchWorkerDatabase } from '../../app/observability.ts';
import { systemClock } from '../../domain/clock.ts';
import { registry } from '../../infra/metrics.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { onCleanup } from '../support/cleanup.ts';
import { TestClock } from '../support/clock.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { count, sample } from '../support/metrics.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { timeSkippingEnvironment } from '../support/time-skipping.ts';
import { createTestWorker } from '../support/worker.ts';

// The worker's metrics, read from the process's registry as a scrape reads them: attempts by
// outcome from a real delivery to a real HTTPS receiver, and the dispatcher's lag from Postgres.

const BASE = '/api/v1/distribution';
let env: TestWorkflowEnvironment;
let orm: MikroORM;
let api: TestApi;
let receiver: Receiver;
let taskQueue: string;
/** The instant the gauges compute ages from; set by each test. */
const scrapeClock = new TestClock('2026-11-22T10:00:00Z');

beforeAll(async () => {
  env = await timeSkippingEnvironment();
  receiver = await startReceiver();
  const bed = await apiTestBed({
    clock: systemClock,
    temporal: env.client,
    taskQueue: 'delivery-metrics',
    receiver,
    env: { DISPATCH_POLL_SECONDS: String(30 * 86_400) },
  });
  ({ api, orm } = bed);
  taskQueue = bed.taskQueue!;
  onCleanup(watchWorkerDatabase(orm, scrapeClock));
});

function worker(): Promise<Worker> {
  return createTestWorker(env, orm, {
    taskQueue,
    replayEveryTask: true,
    webhooks: { allowLocal: true, caFile: receiver.caFile },
  });
}

let counter = 0;
/** A channel with an endpoint at its own receiver path and one property, not yet distributed to it. */
async function scenario(name: string) {
  counter += 1;
  const ctx = adminContext(orm, env.client, systemClock, taskQueue);
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
  const endpoint = (
    await api.call('POST', `${BASE}/webhooks`, {
      key: key.key,
      body: { url: `${receiver.url}/${name}`, events: ['property.*'] },
    })
  ).json;
  const host = platform(api);
  const ref = `${name}-${counter}`;
  await host.organization(`${ref}-org`);
  await host.owner(`${ref}-own`, { organization: `${ref}-org` });
  await host.location(`${ref}-loc`, { organization: `${ref}-org`, owner: `${ref}-own` });
  await host.property(`${ref}-p`, { location: `${ref}-loc`, owner: `${ref}-own` });
  return { channel, key: key.key, endpoint, publish: () => host.distribute(`${ref}-p`, [channel.name]) };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function undispatched(channelId: string): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await orm.em
    .fork()
    .execute<{ count: string; oldest: Date | string | null }[]>(
      'select count(e.position) as count, min(e.occurred_at) as oldest from dispatch_progress p left join event e on e.channel_id = p.channel_id and e.position > p.position where p.channel_id = ?',
      [channelId],
    );
  return { count: Number(row!.count), oldest: row!.oldest === null ? null : new Date(row!.oldest) };
}

async function firstDelivery(endpointId: string): Promise<WorkflowHandle> {
  let eventId: string | undefined;
  await until('a delivery is dispatched', async () => {
    const [row] = await orm.em
      .fork()
      .execute<{ event_id: string }[]>(
        'select event_id from webhook_delivery where endpoint_id = ? order by created_at limit 1',
        [endpointId],
      );
    eventId = row?.event_id;
    return eventId !== undefined;
  });
  return new Client({ connection: env.connection }).workflow.getHandle(
    workflowIds.webhookDelivery(endpointId, eventId!),
  );
}

async function settled(handle: WorkflowHandle): Promise<unknown> {
  // The dispatcher records a delivery, then starts its workflow: until it has, there is none to describe.
  const closed = async () => {
    try {
      return (await handle.describe()).status.name !== 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  };
  await until(`${handle.workflowId} closes`, closed);
  return handle.result();
}

/**
 * Waits until the dispatcher has read the whole channel log and every delivery of the endpoint has
 * closed, so nothing of this scenario is still sending; answers its attempts by status code.
 */
async function quiet(s: { channel: { id: string }; endpoint: { id: string } }): Promise<(number | null)[]> {
  await until('the dispatcher reaches the end of the log', async () => (await undispatched(s.channel.id)).count === 0);
  await until('every delivery of the endpoint closes', async () => {
    const rows = await orm.em
      .fork()
      .execute<{ state: string }[]>('select state from webhook_delivery where endpoint_id = ?', [s.endpoint.id]);
    return rows.length > 0 && rows.every((row) => row.state !== 'pending');
  });
  const attempts = await orm.em
    .fork()
    .execute<{ status_code: number | null }[]>(
      'select a.status_code from webhook_attempt a join webhook_delivery d on d.id = a.delivery_id where d.endpoint_id = ?',
      [s.endpoint.id],
    );
  return attempts.map((attempt) => attempt.status_code);
}

describe('worker metrics', () => {
  test('the dispatcher lag gauges show the events not yet dispatched and their age, then zero once dispatched', async () => {
    const s = await scenario('lag');
    receiver.respond(204);
    // Published while no worker runs: the events wait in the channel's log.
    await s.publish();
    const waiting = await undispatched(s.channel.id);
    expect(waiting.count).toBeGreaterThan(0);
    scrapeClock.set(new Date(waiting.oldest!.getTime() + 90_000));
    const behind = await registry.metrics();
    expect(sample(behind, 'svc_dispatch_undispatched_events', { channel: s.channel.name })).toBe(waiting.count);
    expect(sample(behind, 'svc_dispatch_oldest_undispatched_seconds', { channel: s.channel.name })).toBeCloseTo(90, 3);

    const w = await worker();
    // Every delivery of this scenario closes here, so none still sends during the next test.
    await w.runUntil(async () => {
      await s.publish();
      await quiet(s);
    });
    const caughtUp = await registry.metrics();
    expect(sample(caughtUp, 'svc_dispatch_undispatched_events', { channel: s.channel.name })).toBe(0);
    expect(sample(caughtUp, 'svc_dispatch_oldest_undispatched_seconds', { channel: s.channel.name })).toBe(0);
  });

  test('delivered attempts and a 410 are counted by outcome as the database recorded them, and timed; the gone endpoint shows as suspended', async () => {
    const before = await registry.metrics();
    const delivered = { kind: 'delivery', outcome: 'delivered', reason: 'none' };
    const ok = await scenario('delivered');
    const gone = await scenario('gone');
    const w = await worker();
    let okAttempts: (number | null)[] = [];
    let goneAttempts: (number | null)[] = [];
    await w.runUntil(async () => {
      receiver.respond(204);
      await ok.publish();
      expect(await settled(await firstDelivery(ok.endpoint.id))).toBe('delivered');
      okAttempts = await quiet(ok);
      receiver.respond(410);
      await gone.publish();
      expect(await settled(await firstDelivery(gone.endpoint.id))).toBe('gone');
      goneAttempts = await quiet(gone);
    });
    receiver.respond(204);
    // What the database recorded: every attempt of the first endpoint delivered; one 410 suspended the second.
    expect(okAttempts.length).toBeGreaterThan(0);
    expect(okAttempts.every((code) => code === 204)).toBe(true);
    expect(goneAttempts).toEqual([410]);
    const after = await registry.metrics();
    const delta = (name: string, labels: Record<string, string>) =>
      count(after, name, labels) - count(before, name, labels);
    expect(delta('svc_webhook_attempts_total', delivered)).toBe(okAttempts.length);
    expect(delta('svc_webhook_attempts_total', { kind: 'delivery', outcome: 'gone' })).toBe(1);
    expect(delta('svc_webhook_attempts_total', { kind: 'delivery', outcome: 'failed' })).toBe(0);
    expect(delta('svc_webhook_attempt_duration_seconds_count', { kind: 'delivery', outcome: 'delivered' })).toBe(
      okAttempts.length,
    );
    expect(
      delta('svc_webhook_attempt_duration_seconds_sum', { kind: 'delivery', outcome: 'delivered' }),
    ).toBeGreaterThan(0);
    expect(sample(after, 'svc_webhook_endpoints_suspended', { channel: gone.channel.name, reason: 'gone' })).toBe(1);
    expect(sample(after, 'svc_webhook_endpoints_suspended', { channel: ok.channel.name })).toBeUndefined();
  });
});

/** The endpoint's deliveries with their attempts, the instant each was delivered and its event's commit. */
async function deliveredRows(endpointId: string) {
  const rows = await orm.em
    .fork()
    .execute<{ attempts: number; state: string; completed_at: Date | string | null; occurred_at: Date | string }[]>(
      `select d.attempts, d.state, d.completed_at, ev.occurred_at
       from webhook_delivery d join event ev on ev.id = d.event_id
      where d.endpoint_id = ?`,
      [endpointId],
    );
  return rows.map((row) => ({
    attempts: row.attempts,
    state: row.state,
    seconds: (new Date(row.completed_at!).getTime() - new Date(row.occurred_at).getTime()) / 1000,
  }));
}

/** The overdue gauge of one channel, scraped at `at`. */
async function overdueAt(channel: string, at: Date): Promise<number | undefined> {
  scrapeClock.set(at);
  return sample(await registry.metrics(), 'svc_webhook_delivery_overdue_seconds', { channel });
}

describe('delivery latency and lateness', () => {
  test('a delivery delivered at its first attempt is observed once under attempt="first", as the seconds from its event\'s commit to its recorded 2xx, and counted under its channel', async () => {
    const s = await scenario('first-latency');
    receiver.respond(204);
    const before = await registry.metrics();
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      await quiet(s);
    });
    const after = await registry.metrics();
    const delta = (name: string, labels: Record<string, string>) =>
      count(after, name, labels) - count(before, name, labels);

    const rows = await deliveredRows(s.endpoint.id);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.state === 'delivered' && row.attempts === 1)).toBe(true);
    const first = { attempt: 'first' };
    expect(delta('svc_webhook_commit_to_delivery_seconds_count', first)).toBe(rows.length);
    expect(delta('svc_webhook_commit_to_delivery_seconds_bucket', { ...first, le: '+Inf' })).toBe(rows.length);
    expect(delta('svc_webhook_commit_to_delivery_seconds_count', { attempt: 'retry' })).toBe(0);
    // The sum is exactly what the database holds: delivered instant minus the event's occurred_at.
    const seconds = rows.reduce((sum, row) => sum + row.seconds, 0);
    expect(seconds).toBeGreaterThan(0);
    expect(delta('svc_webhook_commit_to_delivery_seconds_sum', first)).toBeCloseTo(seconds, 6);
    expect(delta('svc_webhook_channel_attempts_total', { channel: s.channel.name, outcome: 'delivered' })).toBe(
      rows.length,
    );
    expect(delta('svc_webhook_channel_attempts_total', { channel: s.channel.name, outcome: 'failed' })).toBe(0);
  });

  test('a pending delivery is overdue from its creation while its first attempt waits, from its scheduled retry once one is due, and is observed under attempt="retry" once the retry delivers', async () => {
    const s = await scenario('overdue');
    const before = await registry.metrics();
    // The first attempts wait at the receiver, then fail with a 500.
    receiver.respond(500);
    receiver.hold();
    const w = await worker();
    let rows: Awaited<ReturnType<typeof deliveredRows>> = [];
    await w.runUntil(async () => {
      await s.publish();
      await until('a first attempt reaches the receiver', () =>
        Promise.resolve(receiver.received.some((r) => r.path.endsWith('/overdue'))),
      );
      const pending = () =>
        orm.em
          .fork()
          .execute<{ created_at: Date | string; next_attempt_at: Date | string | null; attempts: number }[]>(
            "select created_at, next_attempt_at, attempts from webhook_delivery where endpoint_id = ? and state = 'pending'",
            [s.endpoint.id],
          );
      const waiting = await pending();
      expect(waiting.length).toBeGreaterThan(0);
      expect(waiting.every((row) => row.attempts === 0)).toBe(true);
      const created = Math.min(...waiting.map((row) => new Date(row.created_at).getTime()));
      expect(await overdueAt(s.channel.name, new Date(created + 30_000))).toBeCloseTo(30, 3);
      receiver.release();

      // Every delivery failed once and waits for its retry, due at next_attempt_at.
      let retries: { next_attempt_at: Date | string | null }[] = [];
      await until('every retry is scheduled', async () => {
        retries = await pending();
        return retries.length === waiting.length && retries.every((row) => row.next_attempt_at !== null);
      });
      const due = Math.min(...retries.map((row) => new Date(row.next_attempt_at!).getTime()));
      expect(await overdueAt(s.channel.name, new Date(due - 1_000))).toBe(0);
      expect(await overdueAt(s.channel.name, new Date(due + 90_000))).toBeCloseTo(90, 3);

      receiver.respond(204);
      await env.sleep(120_000);
      await quiet(s);
      rows = await deliveredRows(s.endpoint.id);
    });
    const after = await registry.metrics();
    const delta = (name: string, labels: Record<string, string>) =>
      count(after, name, labels) - count(before, name, labels);
    expect(rows.every((row) => row.state === 'delivered' && row.attempts === 2)).toBe(true);
    const retry = { attempt: 'retry' };
    expect(delta('svc_webhook_commit_to_delivery_seconds_count', retry)).toBe(rows.length);
    expect(delta('svc_webhook_commit_to_delivery_seconds_count', { attempt: 'first' })).toBe(0);
    expect(delta('svc_webhook_commit_to_delivery_seconds_sum', retry)).toBeCloseTo(
      rows.reduce((sum, row) => sum + row.seconds, 0),
      6,
    );
    const channel = s.channel.name;
    expect(delta('svc_webhook_channel_attempts_total', { channel, outcome: 'failed' })).toBe(rows.length);
    expect(delta('svc_webhook_channel_attempts_total', { channel, outcome: 'delivered' })).toBe(rows.length);
    // Nothing of the channel is pending any more.
    expect(await overdueAt(channel, new Date(Date.now() + 86_400_000))).toBe(0);
  });
});
