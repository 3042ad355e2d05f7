import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import { systemClock } from '../../domain/clock.ts';
import { retryDeliveryNow } from '../../services/webhook-operations.ts';
import { planRetries, RETRY_SPAN_MS } from '../../domain/webhooks/retry-schedule.ts';
import { SANDBOX_TIME_FACTOR } from '../../domain/webhooks/time-factor.ts';
import { workflowIds } from '../../workflows/ids.ts';
import type { DeliveryInput } from '../../workflows/webhook-delivery.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { deliveryTestBed, type DeliveryBed } from '../support/delivery-bed.ts';
import type { Receiver } from '../support/receiver.ts';

// The sandbox's delivery clocks on the time-skipping server, through the API, against a real
// HTTPS receiver, a real PostgreSQL and a real SMTP receiver: attempt-now hurries a waiting
// delivery, and fast retries walk a failing endpoint to its suspension in minutes of schedule.

const MOST_RETRIES = planRetries(() => 0).length;
const FEWEST_RETRIES = planRetries(() => 1 - Number.EPSILON).length;
const BASE = '/api/v1/distribution';
const MINUTE = 60_000;
let env: TestWorkflowEnvironment;
let orm: MikroORM;
let api: TestApi;
let receiver: Receiver;
let taskQueue: string;
let mails: string[];
let worker: DeliveryBed['worker'];

beforeAll(async () => {
  ({ env, orm, api, receiver, taskQueue, mails, worker } = await deliveryTestBed('sandbox-time'));
});

const call = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await api.call(method, `${BASE}${path}`, { key, ...(body === undefined ? {} : { body }) });
  if (res.status < 400) expectMatchesDescription(method, `${BASE}${path}`, res);
  return res;
};

/** A channel with a contact, an endpoint at its own receiver path, and one property to publish. */
async function scenario(name: string) {
  const ctx = adminContext(orm, env.client, systemClock, taskQueue);
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
  await orm.em
    .fork()
    .execute('update channel set technical_contact_email = ? where id = ?', ['tech@sandbox.test', channel.id]);
  const path = `${receiver.url}/${name}`;
  const endpoint = (await call(key.key, 'POST', '/webhooks', { url: path, events: ['property.*'] })).json as {
    id: string;
  };
  const host = platform(api);
  await host.organization(`${name}-org`);
  await host.owner(`${name}-own`, { organization: `${name}-org` });
  await host.location(`${name}-loc`, { organization: `${name}-org`, owner: `${name}-own` });
  await host.property(`${name}-p`, { location: `${name}-loc`, owner: `${name}-own` });
  return {
    ctx,
    key: key.key,
    endpoint,
    requests: () => receiver.received.filter((r) => r.path === new URL(path).pathname),
    publish: () => host.distribute(`${name}-p`, [channel.name]),
  };
}

/** The endpoint's first delivery and its workflow, once the dispatcher made it. */
async function firstDelivery(endpointId: string) {
  for (let i = 0; i < 800; i += 1) {
    const [row] = await orm.em
      .fork()
      .execute<{ id: string; event_id: string }[]>(
        'select id, event_id from webhook_delivery where endpoint_id = ? order by created_at limit 1',
        [endpointId],
      );
    if (row) {
      const client = new Client({ connection: env.connection });
      return { ...row, handle: client.workflow.getHandle(workflowIds.webhookDelivery(endpointId, row.event_id)) };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no delivery was dispatched');
}

/** Waits (bounded) until the delivery's retry timer is started. */
async function retrying(handle: WorkflowHandle): Promise<void> {
  await expect
    .poll(async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes) ?? false, {
      timeout: 10_000,
    })
    .toBe(true);
}

async function settled(handle: WorkflowHandle, timeoutMs = 30_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let running = true;
    try {
      running = (await handle.describe()).status.name === 'RUNNING';
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
    if (!running) return handle.result();
    if (Date.now() > deadline) throw new Error(`${handle.workflowId} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The input the workflow's current run started with. */
async function inputOf(handle: WorkflowHandle): Promise<DeliveryInput> {
  const started = (await handle.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
  return defaultPayloadConverter.fromPayload<DeliveryInput>(started.input!.payloads![0]!);
}

async function timerDelays(handle: WorkflowHandle): Promise<number[]> {
  return ((await handle.fetchHistory()).events ?? []).flatMap((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6)] : [];
  });
}

describe('POST /sandbox/deliveries/attempt-now', () => {
  test('a delivery waiting for its 1-minute retry makes that attempt at once: the answer names it and the receiver gets it', async () => {
    const s = await scenario('hurried');
    receiver.respond(500);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      await retrying(delivery.handle);
      expect(s.requests()).toHaveLength(1);
      receiver.respond(200);
      // Time does not skip here (no result is awaited): only the hurry can make attempt 2 now.
      const res = await call(s.key, 'POST', '/sandbox/deliveries/attempt-now', { webhook_id: s.endpoint.id });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual({
        hurried: [{ delivery_id: delivery.id, webhook_id: s.endpoint.id, attempt: 2, was_due_at: expect.any(String) }],
        more: false,
      });
      await expect.poll(() => s.requests().length, { timeout: 10_000 }).toBe(2);
      expect(new Set(s.requests().map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(await settled(delivery.handle)).toBe('delivered');
      // Nothing waits any more: a second call hurries nothing.
      const again = await call(s.key, 'POST', '/sandbox/deliveries/attempt-now', {});
      expect(again.json).toEqual({ hurried: [], more: false });
    });
  }, 60_000);

  test("another channel's endpoint is not_found", async () => {
    const s = await scenario('foreign');
    const other = await channelWithKey(adminContext(orm, env.client, systemClock, taskQueue), {
      scopes: ['manage:webhooks'],
    });
    const res = await call(other.key.key, 'POST', '/sandbox/deliveries/attempt-now', { webhook_id: s.endpoint.id });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('not_found');
  });
});

describe('PUT /sandbox/webhooks/{webhook_id}/fast-retries', () => {
  test(`a failing endpoint with fast retries walks the whole schedule in ${RETRY_SPAN_MS / SANDBOX_TIME_FACTOR / 1000} s: suspended failing, its contact e-mailed`, async () => {
    const s = await scenario('fast');
    const set = await call(s.key, 'PUT', `/sandbox/webhooks/${s.endpoint.id}/fast-retries`, { enabled: true });
    expect(set.json).toEqual({ webhook_id: s.endpoint.id, enabled: true, time_factor: SANDBOX_TIME_FACTOR });
    expect((await call(s.key, 'GET', `/sandbox/webhooks/${s.endpoint.id}/fast-retries`)).json).toEqual(set.json);
    receiver.respond(500);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      const input = await inputOf(delivery.handle);
      expect(input).toMatchObject({ timeFactor: SANDBOX_TIME_FACTOR });
      await env.sleep(RETRY_SPAN_MS / SANDBOX_TIME_FACTOR + MINUTE);
      expect(await settled(delivery.handle)).toBe('failed');
      const delays = await timerDelays(delivery.handle);
      expect(delays.length).toBeGreaterThanOrEqual(FEWEST_RETRIES);
      expect(delays.length).toBeLessThanOrEqual(MOST_RETRIES);
      expect(s.requests()).toHaveLength(delays.length + 1);
      const endpoint = (await call(s.key, 'GET', `/webhooks/${s.endpoint.id}`)).json;
      expect(endpoint).toMatchObject({ status: 'inactive', suspended_reason: 'failing' });
      await expect
        .poll(() =>
          mails.some((m) => m.includes('tech@sandbox.test') && m.includes(s.endpoint.id) && m.includes('failing')),
        )
        .toBe(true);
    });
  }, 120_000);

  test("a fast-retry delivery whose run is gone, driven again by an operator's retry, keeps its factor", async () => {
    const s = await scenario('fast-again');
    await call(s.key, 'PUT', `/sandbox/webhooks/${s.endpoint.id}/fast-retries`, { enabled: true });
    receiver.respond(500);
    const w = await worker();
    await w.runUntil(async () => {
      await s.publish();
      const delivery = await firstDelivery(s.endpoint.id);
      await retrying(delivery.handle);
      await delivery.handle.terminate('test: the run is lost');
      receiver.respond(204);
      const { retry } = await retryDeliveryNow(s.ctx, delivery.id);
      expect(retry.drivenAgain).toBe(true);
      const again = new Client({ connection: env.connection }).workflow.getHandle(delivery.handle.workflowId);
      expect(await inputOf(again)).toMatchObject({ timeFactor: SANDBOX_TIME_FACTOR });
      expect(await settled(again)).toBe('delivered');
    });
  }, 60_000);

  test('turned off, the factor is 1 again; an unknown endpoint is not_found', async () => {
    const s = await scenario('fast-off');
    await call(s.key, 'PUT', `/sandbox/webhooks/${s.endpoint.id}/fast-retries`, { enabled: true });
    const off = await call(s.key, 'PUT', `/sandbox/webhooks/${s.endpoint.id}/fast-retries`, { enabled: false });
    expect(off.json).toEqual({ webhook_id: s.endpoint.id, enabled: false, time_factor: 1 });
    const unknown = await call(s.key, 'PUT', '/sandbox/webhooks/whk_unknown/fast-retries', { enabled: true });
    expect(unknown.status).toBe(404);
  });
});
