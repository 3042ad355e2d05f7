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
    await w.runUntil(() => quiet(s));
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
