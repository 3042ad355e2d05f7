import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { expect, inject, test } from 'vitest';
import { createWorker } from '../../app/worker.ts';
import { systemClock } from '../../domain/clock.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { onCleanup } from '../support/cleanup.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { activityDeps } from '../support/worker.ts';

// Which worker makes a delivery's first attempt, on the run's Temporal dev server. The service's
// worker (app/worker.ts) runs here as scripts/worker.ts runs it: on a native connection of its
// own, its dispatcher starting deliveries through a client on that connection, which may ask for
// eager execution. An attempt is a local activity of the delivery's first workflow task, so the
// worker that takes that task makes the attempt; its history names it, and says whether the start
// was answered with the task (eager).

const BASE = '/api/v1/distribution';
const ENDPOINTS = 4;
const CHANGES = 10;

/** The service's worker polling `taskQueue` under `identity`, stopped after the test. */
async function startWorker(
  bed: Awaited<ReturnType<typeof apiTestBed>>,
  receiver: Receiver,
  identity: string,
): Promise<void> {
  const taskQueue = bed.taskQueue!;
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  onCleanup(() => connection.close());
  // The client's identity as well: an eager task is recorded as started by the start's caller.
  const own = new Client({ connection, namespace: 'default', identity });
  // Its workflow client (the dispatcher's starts) is on `own` too.
  const deps = activityDeps(bed.orm, {
    client: own,
    taskQueue,
    webhooks: { allowLocal: true, caFile: receiver.caFile },
  });
  const worker = await createWorker({ connection, namespace: 'default', taskQueue, deps, overrides: { identity } });
  const running = worker.run();
  onCleanup(async () => {
    worker.shutdown();
    await running;
  });
}

/** Waits (bounded) until the server lists every one of `identities` among the queue's workflow-task pollers. */
async function polling(client: Client, taskQueue: string, identities: string[]): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
    });
    const listed = new Set(pollers.map((p) => p.identity));
    if (identities.every((identity) => listed.has(identity))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not every one of ${identities.join(', ')} polls ${taskQueue}`);
}

/**
 * A channel with `ENDPOINTS` endpoints and one property distributed to it, then `CHANGES`
 * changes of the property: (1 + CHANGES) × ENDPOINTS deliveries, all received. For each, whether
 * its start was eager and the worker that took its first workflow task.
 */
async function deliver(bed: Awaited<ReturnType<typeof apiTestBed>>, receiver: Receiver, name: string) {
  const { channel, key } = await bed.channel({ scopes: ['read:catalog', 'manage:webhooks'] });
  const endpoints: string[] = [];
  for (let i = 0; i < ENDPOINTS; i += 1) {
    const created = await bed.api.call('POST', `${BASE}/webhooks`, {
      key: key.key,
      body: { url: `${receiver.url}/${name}-${i}`, events: ['property.*'] },
    });
    expect(created.status, created.text).toBe(201);
    endpoints.push(String(created.json.id));
  }
  await bed.host.organization(`${name}-org`);
  await bed.host.owner(`${name}-own`, { organization: `${name}-org` });
  await bed.host.location(`${name}-loc`, { organization: `${name}-org`, owner: `${name}-own` });
  const property = (units: number) =>
    bed.host.property(`${name}-p`, { location: `${name}-loc`, owner: `${name}-own`, units });
  await property(1);
  await bed.host.distribute(`${name}-p`, [channel.name]);
  for (let i = 0; i < CHANGES; i += 1) await property(2 + i);
  const expected = (1 + CHANGES) * ENDPOINTS;
  await receiver.waitFor(expected, 60_000);

  // Each attempt records its delivery once the receiver has answered: wait (bounded) for the last.
  const delivered = () =>
    bed.orm.em
      .fork()
      .execute<{ endpoint_id: string; event_id: string }[]>(
        "select endpoint_id, event_id from webhook_delivery where endpoint_id in (?) and state = 'delivered'",
        [endpoints],
      );
  let rows = await delivered();
  for (const deadline = Date.now() + 10_000; rows.length < expected && Date.now() < deadline; rows = await delivered())
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(rows).toHaveLength(expected);
  return Promise.all(
    rows.map(async (row) => {
      const history = await bed.temporal.workflow
        .getHandle(workflowIds.webhookDelivery(row.endpoint_id, row.event_id))
        .fetchHistory();
      const events = history.events ?? [];
      return {
        eager: events[0]?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted === true,
        by: events.find((event) => event.workflowTaskStartedEventAttributes)!.workflowTaskStartedEventAttributes!
          .identity!,
      };
    }),
  );
}

test("one worker alone asks for its deliveries' first workflow tasks with their starts (eager), and makes every first attempt", async () => {
  const receiver = await startReceiver();
  const bed = await apiTestBed({ clock: systemClock, taskQueue: 'spread-one', receiver });
  await startWorker(bed, receiver, 'spread-alone');
  await polling(bed.temporal, bed.taskQueue!, ['spread-alone']);

  const firsts = await deliver(bed, receiver, 'one');
  expect(firsts.filter((first) => !first.eager)).toEqual([]);
  expect(new Set(firsts.map((first) => first.by))).toEqual(new Set(['spread-alone']));
});

test('with two workers polling the task queue, deliveries start through the queue and each worker makes a share of the first attempts', async () => {
  const receiver = await startReceiver();
  const bed = await apiTestBed({ clock: systemClock, taskQueue: 'spread-two', receiver });
  await startWorker(bed, receiver, 'spread-a');
  await startWorker(bed, receiver, 'spread-b');
  await polling(bed.temporal, bed.taskQueue!, ['spread-a', 'spread-b']);

  const firsts = await deliver(bed, receiver, 'two');
  const shares = { 'spread-a': 0, 'spread-b': 0 } as Record<string, number>;
  for (const first of firsts) shares[first.by] = (shares[first.by] ?? 0) + 1;
  // 44 deliveries: each worker takes at least a quarter (both ways is 50/50 on average).
  expect(Object.keys(shares).sort()).toEqual(['spread-a', 'spread-b']);
  for (const share of Object.values(shares))
    expect(share, JSON.stringify(shares)).toBeGreaterThanOrEqual(firsts.length / 4);
  expect(firsts.filter((first) => first.eager)).toEqual([]);
});
