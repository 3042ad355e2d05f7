import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { systemClock } from '../../domain/clock.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// The operator's delivery commands as the operator runs them (`npm run admin -- …`, a child
// process), against a real worker on the run's Temporal dev server, in real time, and a real
// HTTPS receiver that fails a delivery's first attempt.

const BASE = '/api/v1/distribution';
let api: TestApi;
let ctx: AdminContext;
let temporal: Client;
let receiver: Receiver;
let env: Record<string, string>;

const admin = async (...args: string[]) => {
  const run = await runNode('scripts/admin.ts', args, env);
  return { ...run, json: run.code === 0 ? JSON.parse(run.stdout) : undefined };
};

beforeAll(async () => {
  receiver = await startReceiver();
  const bed = await apiTestBed({ clock: systemClock, receiver, taskQueue: 'cli-deliveries', worker: true });
  ({ api, ctx, temporal } = bed);
  env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: bed.taskQueue!,
    LOG_LEVEL: 'silent',
  };
});

/** A channel with one endpoint on the receiver, and a published property: one delivery. */
async function publishedDelivery(name: string) {
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
  const path = `/hooks/${name}`;
  const created = await api.call('POST', `${BASE}/webhooks`, {
    key: key.key,
    body: { url: `${receiver.url}/${name}`, events: ['property.*'] },
  });
  expect(created.status).toBe(201);
  const host = platform(api);
  await host.organization(`${name}-org`);
  await host.owner(`${name}-own`, { organization: `${name}-org` });
  await host.location(`${name}-loc`, { organization: `${name}-org`, owner: `${name}-own` });
  await host.property(`${name}-p`, { location: `${name}-loc`, owner: `${name}-own` });
  await host.distribute(`${name}-p`, [channel.name]);
  return {
    channel: channel.name,
    endpointId: created.json.id as string,
    requests: () => receiver.received.filter((r) => r.path === path),
  };
}

/** Polls `read` (bounded) until it answers something other than undefined. */
async function eventually<T>(
  read: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A delivery whose first attempt failed (the receiver answers 500), once `delivery list` shows it retrying. */
async function retryingDelivery(name: string) {
  receiver.respond(500);
  const s = await publishedDelivery(name);
  await eventually(() => s.requests()[0], 'the first attempt');
  const delivery = await eventually(async () => {
    const run = await admin('delivery', 'list', '--endpoint', s.endpointId, '--state', 'retrying');
    return run.json?.data[0];
  }, 'the delivery listed as retrying');
  return { s, delivery };
}

describe('npm run admin -- delivery / endpoint', () => {
  test('a delivery waiting for its 1-minute retry is listed, retried now, and arrives within seconds; then the endpoint reads 1 of 2 attempts delivered', async () => {
    receiver.respond(500);
    const s = await publishedDelivery('hurry');
    // The first attempt fails; the delivery waits for its retry, due 48-72 s later.
    await eventually(() => s.requests()[0], 'the first attempt');
    const listed = await eventually(async () => {
      const run = await admin('delivery', 'list', '--channel', s.channel, '--state', 'retrying');
      expect(run.code, run.stderr).toBe(0);
      return run.json.data[0]?.next_attempt_at ? run.json : undefined;
    }, 'the delivery listed as retrying');
    receiver.respond(204);
    expect(listed.more).toBe(false);
    expect(listed.data).toHaveLength(1);
    const [delivery] = listed.data;
    expect(delivery).toMatchObject({
      state: 'retrying',
      channel: s.channel,
      endpoint_id: s.endpointId,
      endpoint_host: new URL(receiver.url).host,
      event_type: 'property.distributed',
      attempts: 1,
      last_attempt: { status_code: 500, error: 'http_status' },
    });
    const dueAt = Date.parse(delivery.next_attempt_at);
    expect(dueAt - Date.parse(delivery.last_attempt_at)).toBeGreaterThanOrEqual(45_000);

    const asked = Date.now();
    const retried = await admin('delivery', 'retry', delivery.id);
    expect(retried.code, retried.stderr).toBe(0);
    // It answers once the attempt is made: what it did, and the delivery as it is after it.
    expect(retried.json).toMatchObject({
      id: delivery.id,
      state: 'delivered',
      attempts: 2,
      retry: {
        attempt: 2,
        was_due_at: delivery.next_attempt_at,
        driven_again: false,
        result: { outcome: 'delivered', status_code: 204, error: null, state: 'delivered', next_attempt_at: null },
      },
    });
    const second = s.requests()[1]!;
    // Within seconds of the command (a child process: its start included), long before it was due.
    expect(second.at - asked).toBeLessThan(10_000);
    expect(second.at).toBeLessThan(dueAt - 20_000);
    expect(second.headers['webhook-id']).toBe(s.requests()[0]!.headers['webhook-id']);

    const handle = temporal.workflow.getHandle(workflowIds.webhookDelivery(s.endpointId, delivery.event_id));
    expect(await handle.result()).toBe('delivered');
    await eventually(
      async () => ((await handle.describe()).typedSearchAttributes.get(SA_STATE) === 'delivered' ? true : undefined),
      'SvcState delivered',
    );
    // Delivered: it is no longer listed as undelivered, and a second retry is refused.
    const after = await admin('delivery', 'list', '--endpoint', s.endpointId);
    expect(after.json.data).toEqual([]);
    const again = await admin('delivery', 'retry', delivery.id);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`delivery ${delivery.id} is delivered`);

    const health = await admin('endpoint', 'health', s.endpointId);
    expect(health.code, health.stderr).toBe(0);
    const lastSuccess = Date.parse(health.json.last_hour.last_success_at);
    expect(health.json).toMatchObject({
      endpoint: { id: s.endpointId, channel: s.channel, status: 'active', suspended_reason: null },
      last_hour: { attempts: 2, delivered: 1, success_ratio: 0.5 },
      last_day: { attempts: 2, delivered: 1, success_ratio: 0.5 },
    });
    expect(Math.abs(lastSuccess - second.at)).toBeLessThan(2_000);
  });

  test('a retry against a receiver that hangs waits for the attempt and says what it did; a second retry meanwhile joins it', async () => {
    const { s, delivery } = await retryingDelivery('hangs');
    // From here the receiver answers nothing: the attempt runs into its 10-s time-out.
    receiver.hold();
    try {
      const first = admin('delivery', 'retry', delivery.id);
      await eventually(() => s.requests()[1], 'the retried attempt');
      // Asked again while the attempt is under way: it joins the first rather than making another.
      const second = admin('delivery', 'retry', delivery.id);
      const [one, two] = await Promise.all([first, second]);
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      expect(one.json.retry).toMatchObject({
        attempt: 2,
        result: { outcome: 'failed', status_code: null, error: 'timeout', state: 'retrying' },
      });
      expect(two.json.retry.result).toEqual(one.json.retry.result);
      // The schedule goes on from attempt 2: attempt 3 is due 5 m ±20 % after it ended (10 s after it began).
      const next = Date.parse(one.json.retry.result.next_attempt_at) - Date.parse(one.json.last_attempt_at);
      expect(next).toBeGreaterThanOrEqual(4 * 60_000);
      expect(next).toBeLessThanOrEqual(6 * 60_000 + 15_000);
      expect(one.json).toMatchObject({
        state: 'retrying',
        attempts: 2,
        next_attempt_at: one.json.retry.result.next_attempt_at,
      });
      expect(s.requests()).toHaveLength(2);
    } finally {
      receiver.release();
      receiver.respond(204);
    }
  });

  test('a delivery whose workflow was terminated stays retrying until delivery retry drives it again in a new run', async () => {
    const { s, delivery } = await retryingDelivery('stranded');
    const handle = temporal.workflow.getHandle(workflowIds.webhookDelivery(s.endpointId, delivery.event_id));
    await handle.terminate('lost, as with a namespace');
    receiver.respond(204);
    const retried = await admin('delivery', 'retry', delivery.id);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.json).toMatchObject({
      id: delivery.id,
      state: 'delivered',
      attempts: 2,
      retry: {
        attempt: 2,
        was_due_at: null,
        driven_again: true,
        result: { outcome: 'delivered', status_code: 204, state: 'delivered', next_attempt_at: null },
      },
    });
    expect(s.requests()).toHaveLength(2);
    expect(s.requests()[1]!.headers['webhook-id']).toBe(s.requests()[0]!.headers['webhook-id']);
    // A new run of the same workflow id made it, and ended delivered; the terminated run stays as it was.
    expect(await handle.result()).toBe('delivered');
    const runs = await eventually(async () => {
      const listed: string[] = [];
      for await (const run of temporal.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` }))
        listed.push(run.status.name);
      return listed.length === 2 ? listed.sort() : undefined;
    }, 'both runs listed');
    expect(runs).toEqual(['COMPLETED', 'TERMINATED']);
  });

  test("a delivery's workflow carries its summary for the Temporal UI: endpoint host, event type and id, channel", async () => {
    const s = await publishedDelivery('summary');
    const delivery = await eventually(async () => {
      const run = await admin('delivery', 'list', '--endpoint', s.endpointId, '--state', 'delivered');
      return run.json?.data[0];
    }, 'the delivery');
    const description = await temporal.workflow
      .getHandle(workflowIds.webhookDelivery(s.endpointId, delivery.event_id))
      .describe();
    expect(await description.staticSummary()).toBe(
      `property.distributed ${delivery.event_id} → ${new URL(receiver.url).host} (channel ${s.channel})`,
    );
    expect(await description.staticDetails()).toContain(`delivery retry ${delivery.id}`);
    expect(description.typedSearchAttributes.get(SA_STATE)).toBe('delivered');
  });

  test.each([
    [['delivery', 'retry', 'dlv_01jd0000000000000000000000'], 'no delivery with id'],
    [['delivery', 'retry', 'whk_nope'], 'is not a delivery id'],
    [['delivery', 'list', '--state', 'stuck'], 'state: one or more of'],
    [['delivery', 'list', '--since', 'yesterday'], 'since: an RFC 3339 instant'],
    [['delivery', 'list', '--channel', 'no-such-channel'], 'no channel named "no-such-channel"'],
    [['endpoint', 'health', 'whk_01jd0000000000000000000000'], 'no webhook endpoint with id'],
  ])('%j is refused: one line on stderr, exit 2', async (args, message) => {
    const run = await admin(...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });
});
