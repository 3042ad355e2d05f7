import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { workflowIds } from '../../workflows/ids.ts';

// End to end on the Temporal dev server, in real time: API, worker, Postgres and an HTTPS
// receiver on this machine, which checks signatures with the Standard Webhooks reference library.

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

const BASE = '/api/v1/distribution';
let api: TestApi;
let receiver: Receiver;
let ctx: AdminContext;
let taskQueue: string;
let temporalClient: Client;

beforeAll(async () => {
  receiver = await startReceiver();
  const bed = await apiTestBed({
    clock: systemClock,
    receiver,
    taskQueue: 'e2e-webhooks',
    worker: true,
  });
  ({ api, ctx, temporal: temporalClient } = bed);
  taskQueue = bed.taskQueue!;
});

test('a catalogue change is pushed to a registered receiver, signed as Standard Webhooks', async () => {
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
  const created = await api.call('POST', `${BASE}/webhooks`, {
    key: key.key,
    body: { url: `${receiver.url}/e2e`, events: ['property.*'] },
  });
  expect(created.status).toBe(201);
  const host = platform(api);
  await host.organization('e2e-org');
  await host.owner('e2e-own', { organization: 'e2e-org' });
  await host.location('e2e-loc', { organization: 'e2e-org', owner: 'e2e-own' });
  await host.property('e2e-p', { location: 'e2e-loc', owner: 'e2e-own' });
  await host.distribute('e2e-p', [channel.name]);
  // Warm: the first delivery also starts the dispatcher and loads the workflow bundle.
  await receiver.waitFor(1, 30_000);

  // How fast is measured by `npm run bench:webhooks`; here it must simply arrive, pushed, well
  // before the dispatcher's fallback poll (30 s) could have found it.
  const before = receiver.received.length;
  await host.property('e2e-p', { location: 'e2e-loc', owner: 'e2e-own', units: 3 });
  const [request] = (await receiver.waitFor(before + 1, 10_000)).slice(before);

  const event = new Webhook(created.json.secret).verify(request!.body, request!.headers) as {
    id: string;
    type: string;
    channel: string;
    data: { object: string; id: string; version: number };
  };
  expect(event).toMatchObject({ type: 'property.updated', channel: channel.name, data: { object: 'property' } });
  expect(request!.headers['webhook-id']).toBe(event.id);
  // Tracing is off here (no OTEL_* variables): the POST names no trace (test/e2e/tracing.test.ts has it on).
  expect(request!.headers.traceparent).toBeUndefined();
  // The notification is thin: the channel reads the resource it names, at that version or later.
  const property = await api.call('GET', `${BASE}/properties/${event.data.id}`, { key: key.key });
  expect(property.json.units).toBe(3);
  expect(property.json.version).toBeGreaterThanOrEqual(event.data.version);
});

test("a zone that first appears gets its daily horizon roll, which rolls at once, then sleeps until the zone's next midnight", async () => {
  const host = platform(api);
  await host.organization('zone-org');
  await host.owner('zone-own', { organization: 'zone-org' });
  await host.location('zone-loc', {
    organization: 'zone-org',
    owner: 'zone-own',
    address: { country: 'RO', city: 'Sibiu' },
    timezone: 'Asia/Tokyo',
  });
  const handle = temporalClient.workflow.getHandle(workflowIds.horizonRoll(taskQueue, 'Asia/Tokyo'));
  // The roll is started in the background of the write: wait (bounded) until it sleeps.
  const deadline = Date.now() + 20_000;
  let events: HistoryEvent[] = [];
  while (!events.some((e) => e.timerStartedEventAttributes)) {
    if (Date.now() > deadline)
      expect.fail(`no horizon roll of Asia/Tokyo went to sleep: ${events.length} history events`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    events = await handle
      .fetchHistory()
      .then((h) => h.events ?? [])
      .catch(() => []);
  }
  const timerAt = events.findIndex((e) => e.timerStartedEventAttributes);
  const rolls = events.slice(0, timerAt).filter((e) => e.activityTaskCompletedEventAttributes);
  expect(rolls, 'one roll completed before the first sleep').toHaveLength(1);
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
  expect(scheduled.activityType?.name).toBe('rollHorizon');
  expect(defaultPayloadConverter.fromPayload(scheduled.input!.payloads![0]!)).toBe('Asia/Tokyo');
  // The sleep ends at 00:00 in Tokyo (to the minute), less than a day later.
  const timer = events[timerAt]!;
  const delay = Number(timer.timerStartedEventAttributes!.startToFireTimeout!.seconds ?? 0) * 1000;
  expect(delay).toBeGreaterThan(0);
  expect(delay).toBeLessThanOrEqual(24 * 3600 * 1000);
  const wakes = Number(timer.eventTime!.seconds ?? 0) * 1000 + delay;
  const tokyo = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Asia/Tokyo',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  expect(tokyo.format(new Date(wakes + 30_000))).toBe('00:00');
});
