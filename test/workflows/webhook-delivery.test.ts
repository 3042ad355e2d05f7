import type { MikroORM } from '@mikro-orm/postgresql';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, test } from 'vitest';
import { setChannelStatus, setWebhooksSuspended } from '../../admin/channels.ts';
import type { AdminContext } from '../../admin/context.ts';
import { systemClock } from '../../domain/clock.ts';
import { retryDeliveryNow } from '../../services/webhook-operations.ts';
import {
  JITTER_FRACTION,
  NOMINAL_DELAYS_MS,
  planRetries,
  RETRY_SPAN_MS,
  STEADY_DELAY_MS,
} from '../../domain/webhooks/retry-schedule.ts';
import { workflowIds } from '../../workflows/ids.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { deliveryTestBed, type DeliveryBed } from '../support/delivery-bed.ts';
import type { ReceivedRequest, Receiver } from '../support/receiver.ts';
import { recordHistory } from '../support/time-skipping.ts';

/** The retries a failing delivery makes at most and at least: every delay at its jitter's low and high ends. */
const MOST_RETRIES = planRetries(() => 0).length;
const FEWEST_RETRIES = planRetries(() => 1 - Number.EPSILON).length;

// Deliveries on the time-skipping server: the retry schedule passes in seconds, against a real
// HTTPS receiver, a real Postgres and a real SMTP receiver.

const BASE = '/api/v1/distribution';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let env: TestWorkflowEnvironment;
let orm: MikroORM;
let api: TestApi;
let receiver: Receiver;
let taskQueue: string;
let mails: string[];
let worker: DeliveryBed['worker'];

beforeAll(async () => {
  ({ env, orm, api, receiver, taskQueue, mails, worker } = await deliveryTestBed('webhooks'));
});

let counter = 0;
/** A channel with a contact, an endpoint at its own receiver path, and one published property. */
async function scenario(name: string) {
  counter += 1;
  const ctx = adminContext(orm, env.client, systemClock, taskQueue);
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
  await orm.em
    .fork()
    .execute('update channel set technical_contact_email = ? where id = ?', ['tech@partner.test', channel.id]);
  const path = `${receiver.url}/${name}`;
  const endpoint = (
    await api.call('POST', `${BASE}/webhooks`, { key: key.key, body: { url: path, events: ['property.*'] } })
  ).json;
  const host = platform(api);
  const ref = `${name}-${counter}`;
  await host.organization(`${ref}-org`);
  await host.owner(`${ref}-own`, { organization: `${ref}-org` });
  await host.location(`${ref}-loc`, { organization: `${ref}-org`, owner: `${ref}-own` });
  await host.property(`${ref}-p`, { location: `${ref}-loc`, owner: `${ref}-own` });
  return {
    ctx,
    channel,
    key: key.key,
    endpoint,
    requests: () => receiver.received.filter((r) => r.path === new URL(path).pathname),
    /** Publishes the property: one `property.distributed` event for the endpoint. */
    publish: () => host.distribute(`${ref}-p`, [channel.name]),
    change: (units: number) => host.property(`${ref}-p`, { location: `${ref}-loc`, owner: `${ref}-own`, units }),
  };
}

/** Waits (bounded) until `count` requests reached the scenario's receiver path; returns them. */
async function arrivals(
  s: { requests: () => ReceivedRequest[] },
  count: number,
  timeoutMs = 10_000,
): Promise<ReceivedRequest[]> {
  const deadline = Date.now() + timeoutMs;
  while (s.requests().length < count) {
    if (Date.now() > deadline)
      throw new Error(`${s.requests().length} of ${count} requests arrived in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return s.requests();
}

/** Waits (bounded) until the dispatcher has looked at every event of the channel's log so far. */
async function dispatchedAll(channelId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em
      .fork()
      .execute<{ behind: boolean }[]>(
        'select coalesce(p.position, -1) < l.last_position as behind from channel_log l left join dispatch_progress p on p.channel_id = l.channel_id where l.channel_id = ?',
        [channelId],
      );
    if (row && !row.behind) return;
    if (Date.now() > deadline)
      throw new Error(`the dispatcher did not reach the end of channel ${channelId}'s log in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Verifies a received request with the Standard Webhooks reference library. */
function verifies(secret: string, request: ReceivedRequest): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}

/**
 * Results are awaited through a plain client: time moves only by `env.sleep`, so each test says
 * how much passes. (The time-skipping client's own `result()` can wait for a skip that never
 * comes once another call cancelled the workflow.)
 */
function plain(): Client {
  return new Client({ connection: env.connection });
}

/** Waits until the first attempt failed and the delivery sleeps until its next one. */
/**
 * Waits (bounded) until the delivery has recorded its next attempt and its workflow has started
 * the retry timer, so that moving time afterwards is sure to pass that timer.
 */
async function retrying(delivery: { id: string; handle: WorkflowHandle }): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    const [row] = await orm.em
      .fork()
      .execute<{ next_attempt_at: string | null }[]>('select next_attempt_at from webhook_delivery where id = ?', [
        delivery.id,
      ]);
    if (
      row?.next_attempt_at &&
      (await delivery.handle.fetchHistory()).events?.some((event) => event.timerStartedEventAttributes)
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`delivery ${delivery.id} never started its retry timer`);
}

/**
 * The workflow's result once it has closed; polled, because the test server's long poll can miss
 * the close. The dispatcher writes a delivery's row before it starts the delivery's workflow, so a
 * test that found the row may ask before the workflow exists: not found yet counts as running.
 */
async function settled(handle: WorkflowHandle, timeoutMs = 20_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  const running = () =>
    handle.describe().then(
      (description) => description.status.name === 'RUNNING',
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return true;
        throw error;
      },
    );
  while (await running()) {
    if (Date.now() > deadline) throw new Error(`${handle.workflowId} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return handle.result();
}

/** The delivery workflow of the endpoint's first delivery, once the dispatcher started it. */
async function firstDelivery(endpointId: string) {
  // Up to 20 s: a dispatch the previous test's worker left in flight is retried before this one.
  for (let i = 0; i < 800; i += 1) {
    const [row] = await orm.em
      .fork()
      .execute<{ id: string; event_id: string }[]>(
        'select id, event_id from webhook_delivery where endpoint_id = ? order by created_at limit 1',
        [endpointId],
      );
    if (row) {
      return { ...row, handle: plain().workflow.getHandle(workflowIds.webhookDelivery(endpointId, row.event_id)) };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no delivery was dispatched');
}

async function timerDelays(workflowId: string): Promise<number[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.timerStartedEventAttributes)
    .map((event) => {
      const timeout = event.timerStartedEventAttributes!.startToFireTimeout!;
      return Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6);
    });
}

describe('webhook delivery workflow', () => {
  test('a failing endpoint is retried on the retry schedule within its span, then suspended and its contact e-mailed', async () => {
    const s = await scenario('failing');
    receiver.respond(500);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      await env.sleep(RETRY_SPAN_MS + DAY);
      expect(await settled(delivery.handle)).toBe('failed');

      await recordHistory(delivery.handle, 'webhook-delivery-local-failing');

      const delays = await timerDelays(delivery.handle.workflowId);
      expect(delays.length).toBeGreaterThanOrEqual(FEWEST_RETRIES);
      expect(delays.length).toBeLessThanOrEqual(MOST_RETRIES);
      delays.forEach((delay, i) => {
        const nominal = NOMINAL_DELAYS_MS[i] ?? STEADY_DELAY_MS;
        expect(delay).toBeGreaterThanOrEqual(nominal * (1 - JITTER_FRACTION) - 1);
        expect(delay).toBeLessThanOrEqual(nominal * (1 + JITTER_FRACTION) + 1);
      });
      expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(RETRY_SPAN_MS);
      expect(s.requests()).toHaveLength(delays.length + 1);
      // The same webhook-id on every retry.
      expect(new Set(s.requests().map((r) => r.headers['webhook-id'])).size).toBe(1);

      const endpoint = (await api.call('GET', `${BASE}/webhooks/${s.endpoint.id}`, { key: s.key })).json;
      expect(endpoint).toMatchObject({ status: 'inactive', suspended_reason: 'failing' });
      const deliveries = (await api.call('GET', `${BASE}/webhooks/${s.endpoint.id}/deliveries`, { key: s.key })).json
        .data;
      expect(deliveries[0]).toMatchObject({
        state: 'failed',
        attempts: delays.length + 1,
        event_type: 'property.distributed',
      });
      const detail = (
        await api.call('GET', `${BASE}/webhooks/${s.endpoint.id}/deliveries/${deliveries[0].id}`, { key: s.key })
      ).json;
      expect(detail.attempts_detail).toHaveLength(delays.length + 1);
      expect(detail.attempts_detail[0]).toMatchObject({
        number: 1,
        status_code: 500,
        error: 'http_status',
        response_excerpt: 'answer 500',
      });
      expect(
        mails.some(
          (mail) => mail.includes('tech@partner.test') && mail.includes(s.endpoint.id) && mail.includes('failing'),
        ),
      ).toBe(true);

      // Nothing is delivered to an inactive endpoint: once the dispatcher has looked at the
      // change, it has made no delivery of it (and so none can be sent).
      const before = s.requests().length;
      await s.change(3);
      await dispatchedAll(s.channel.id);
      expect(
        await orm.em.fork().execute('select id from webhook_delivery where endpoint_id = ?', [s.endpoint.id]),
      ).toHaveLength(1);
      expect(s.requests()).toHaveLength(before);
    });
    receiver.respond(204);
  });

  test('a receiver that fails, then recovers, gets the same webhook-id, verified by the reference library', async () => {
    const s = await scenario('recovers');
    receiver.respond(503);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      await arrivals(s, 1);
      await retrying(delivery);
      receiver.respond(204);
      await env.sleep(2 * MINUTE);
      expect(await settled(delivery.handle)).toBe('delivered');
      await recordHistory(delivery.handle, 'webhook-delivery-local-recovers');
    });
    const [failed, delivered] = s.requests();
    expect(delivered!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    new Webhook(s.endpoint.secret).verify(delivered!.body, delivered!.headers);
    expect(JSON.parse(delivered!.body)).toMatchObject({ type: 'property.distributed', data: { object: 'property' } });
  });

  test('a first attempt that delivers costs the server one workflow task: the attempt is a local activity, then SvcState delivered', async () => {
    const s = await scenario('first');
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      expect(await settled(delivery.handle)).toBe('delivered');
      // A new name: webhook-delivery-local-first.json holds the version that left SvcState pending.
      await recordHistory(delivery.handle, 'webhook-delivery-stated-first');
      const types = ((await delivery.handle.fetchHistory()).events ?? []).map((event) => event.eventType);
      const { EventType } = (await import('@temporalio/proto')).temporal.api.enums.v1;
      expect(types).toEqual([
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        EventType.EVENT_TYPE_MARKER_RECORDED,
        EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      ]);
      const description = await delivery.handle.describe();
      expect(description.status.name).toBe('COMPLETED');
      expect(description.searchAttributes.SvcState).toEqual(['delivered']);
      const [row] = await orm.em
        .fork()
        .execute<{ state: string; attempts: number }[]>('select state, attempts from webhook_delivery where id = ?', [
          delivery.id,
        ]);
      expect(row).toEqual({ state: 'delivered', attempts: 1 });
    });
    const [request] = s.requests();
    expect(s.requests()).toHaveLength(1);
    new Webhook(s.endpoint.secret).verify(request!.body, request!.headers);
  });

  test("an operator's retry makes a delivery waiting for its retry attempt now, with the same webhook-id", async () => {
    const s = await scenario('hurried');
    receiver.respond(500);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      await arrivals(s, 1);
      await retrying(delivery);
      receiver.respond(204);
      // No time passes on the test server: only the retry can bring the second attempt.
      const { retry } = await retryDeliveryNow(s.ctx, delivery.id);
      expect(retry.attempt).toBe(2);
      await arrivals(s, 2);
      expect(await settled(delivery.handle)).toBe('delivered');
      await recordHistory(delivery.handle, 'webhook-delivery-stated-hurried');
      const [row] = await orm.em
        .fork()
        .execute<{ state: string; attempts: number }[]>('select state, attempts from webhook_delivery where id = ?', [
          delivery.id,
        ]);
      expect(row).toEqual({ state: 'delivered', attempts: 2 });
    });
    const [failed, delivered] = s.requests();
    expect(delivered!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    new Webhook(s.endpoint.secret).verify(delivered!.body, delivered!.headers);
  });

  test('a 410 suspends the endpoint at once (gone)', async () => {
    const s = await scenario('gone');
    receiver.respond(410);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      expect(await settled(delivery.handle)).toBe('gone');
      // The dispatcher runs on (continue-as-new); its history so far is replayed like the others.
      await recordHistory(plain().workflow.getHandle(workflowIds.eventDispatch(taskQueue)), 'event-dispatch-local');
    });
    receiver.respond(204);
    expect(s.requests()).toHaveLength(1);
    expect((await api.call('GET', `${BASE}/webhooks/${s.endpoint.id}`, { key: s.key })).json).toMatchObject({
      status: 'inactive',
      suspended_reason: 'gone',
    });
  });

  test('deleting the endpoint mid-retry cancels the delivery', async () => {
    const s = await scenario('deleted');
    receiver.respond(500);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      await retrying(delivery);
      expect((await api.call('DELETE', `${BASE}/webhooks/${s.endpoint.id}`, { key: s.key })).status).toBe(204);
      expect(await settled(delivery.handle)).toBe('cancelled');
      const [row] = await orm.em
        .fork()
        .execute<{ state: string }[]>('select state from webhook_delivery where id = ?', [delivery.id]);
      expect(row!.state).toBe('cancelled');
    });
    receiver.respond(204);
    expect(s.requests()).toHaveLength(1);
  });

  test.each([
    ['the channel', 'suspended-channel', (ctx: AdminContext, name: string) => setChannelStatus(ctx, name, 'suspended')],
    [
      "the channel's webhooks",
      'suspended-webhooks',
      (ctx: AdminContext, name: string) => setWebhooksSuspended(ctx, name, true),
    ],
  ])(
    'suspending %s mid-retry cancels the pending delivery, which sends nothing more',
    async (_label, path, suspend) => {
      const s = await scenario(path);
      receiver.respond(500);
      const w = await worker();
      await w.runUntil(async () => {
        await s.publish();
        const delivery = await firstDelivery(s.endpoint.id);
        await retrying(delivery);
        await suspend(s.ctx, s.channel.name);
        // Past the retry (due 48-72 s after the first attempt).
        await env.sleep(2 * MINUTE);
        expect(await settled(delivery.handle)).toBe('cancelled');
        const [row] = await orm.em
          .fork()
          .execute<{ state: string }[]>('select state from webhook_delivery where id = ?', [delivery.id]);
        expect(row!.state).toBe('cancelled');
      });
      receiver.respond(204);
      expect(s.requests()).toHaveLength(1);
    },
  );

  test('a worker stopped while a delivery waits for its retry loses nothing: the next worker makes the retry, same webhook-id', async () => {
    const s = await scenario('restart');
    receiver.respond(500);
    const first = await worker();
    const delivery = await first.runUntil(async () => {
      await s.publish();
      const found = await firstDelivery(s.endpoint.id);
      await retrying(found);
      return found;
    });
    // No worker while the delivery waits for its retry (due 48-72 s after the first attempt).
    await env.sleep(30_000);
    expect(s.requests()).toHaveLength(1);
    receiver.respond(204);
    const second = await worker();
    await second.runUntil(async () => {
      await env.sleep(2 * MINUTE);
      expect(await settled(delivery.handle)).toBe('delivered');
    });
    expect(s.requests()).toHaveLength(2);
    expect(s.requests()[1]!.headers['webhook-id']).toBe(s.requests()[0]!.headers['webhook-id']);
  });
});

describe('webhook secret rotation workflow', () => {
  test('the previous secret signs deliveries for 24 hours beside the new one, then is destroyed and only the new one signs', async () => {
    const s = await scenario('rotation');
    const w = await worker();
    await w.runUntil(async () => {
      const rotated = (
        await api.call('POST', `${BASE}/webhooks/${s.endpoint.id}/rotate-secret`, { key: s.key, body: {} })
      ).json;
      expect(rotated.previous_secret_expires_at).toEqual(expect.any(String));
      const handle = plain().workflow.getHandle(workflowIds.webhookSecretRotation(s.endpoint.id, 2));
      await env.sleep(23 * HOUR);
      // Within the overlap: a delivery verifies with either secret.
      await s.publish();
      const [during] = await arrivals(s, 1);
      expect(verifies(s.endpoint.secret, during!), 'previous secret, at 23 h').toBe(true);
      expect(verifies(rotated.secret, during!), 'new secret, at 23 h').toBe(true);

      await env.sleep(2 * HOUR);
      expect(await settled(handle)).toBe('destroyed');
      await recordHistory(handle, 'webhook-secret-rotation');
      const [stored] = await orm.em
        .fork()
        .execute<{ previous_secret: string | null }[]>('select previous_secret from webhook_endpoint where id = ?', [
          s.endpoint.id,
        ]);
      expect(stored!.previous_secret).toBeNull();
      // After it: only the new secret verifies.
      await s.change(3);
      const [, after] = await arrivals(s, 2);
      expect(verifies(rotated.secret, after!), 'new secret, at 25 h').toBe(true);
      expect(verifies(s.endpoint.secret, after!), 'previous secret, at 25 h').toBe(false);
    });
  });
});
