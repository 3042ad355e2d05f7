import type { MikroORM } from '@mikro-orm/postgresql';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import { certificateExpiryActivities } from '../../activities/certificate-expiry.ts';
import { addDays } from '../../domain/time.ts';
import { startOfLocalDay, zonedDate } from '../../domain/availability/zones.ts';
import type { Clock } from '../../domain/clock.ts';
import { createWorkflowClient } from '../../services/workflow-client.ts';
import type { CertificateExpiryInput } from '../../workflows/certificate-expiry.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { SA_EXPIRES_ON, SA_PROPERTY, SA_STATE } from '../../workflows/search-attributes.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform, sampleLocation } from '../support/catalogue.ts';
import { wallClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { recordHistory, timeSkippingEnvironment } from '../support/time-skipping.ts';
import { activityDeps, runTestWorker } from '../support/worker.ts';

// Certificate expiry on the time-skipping server against a real Postgres: the withdrawal lands at
// the local midnight after `valid_until` in each property's own zone, and a renewal moves it.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const BUCHAREST = 'Europe/Bucharest';
const ROME = 'Europe/Rome';

let env: TestWorkflowEnvironment;
let orm: MikroORM;
let api: TestApi;
let taskQueue: string;
let channels: { id: string; name: string }[];

// The API's clock follows the test server's, so the platform's writes and reads see the same
// local dates as the workflows while months are skipped.
let offset = 0;
const clock: Clock = { now: () => new Date(Date.now() + offset) };

beforeAll(async () => {
  env = await timeSkippingEnvironment();
  offset = (await env.currentTimeMs()) - Date.now();
  const bed = await apiTestBed({
    clock,
    temporal: env.client,
    taskQueue: 'cert-expiry',
    env: { DISPATCH_POLL_SECONDS: String(30 * 86_400), HORIZON_ROLLS_FROM_API: 'false' },
  });
  ({ api, orm } = bed);
  taskQueue = bed.taskQueue!;
  const { ctx } = bed;
  channels = [(await channelWithKey(ctx)).channel, (await channelWithKey(ctx)).channel].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  await runTestWorker(env, orm, { taskQueue });
});

/** Results and histories through a plain client: time moves only by `env.sleep`. */
function plain(): Client {
  return new Client({ connection: env.connection });
}

async function sleepUntil(instant: number): Promise<void> {
  const now = await env.currentTimeMs();
  if (instant > now) await env.sleep(instant - now);
  offset = (await env.currentTimeMs()) - Date.now();
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let counter = 0;
const ITALIAN_TEXTS = {
  name: { it: 'Appartamento con vista', en: 'Apartment with a view' },
  description: { it: 'Appartamento luminoso vicino al centro.', en: 'Bright apartment near the centre.' },
  photos: [],
  rate_plans: [
    {
      key: 'flex',
      name: { it: 'Flessibile', en: 'Flexible' },
      currency: 'EUR',
      cancellation: { refundable: true, free_until_days_before: 7, penalty: 'first_night', penalty_percent: null },
    },
  ],
  fees: [],
};
const ROMAN_ADDRESS = {
  country: 'IT',
  region: 'Lazio',
  city: 'Roma',
  street: 'Via del Corso',
  number: '1',
  postal_code: '00186',
};

/** A property in `zone` carrying `legal`, distributed to both channels. */
async function propertyWith(
  country: 'RO' | 'IT',
  zone: string,
  legal: Record<string, unknown>,
): Promise<{ id: string; ref: string }> {
  counter += 1;
  const host = platform(api);
  const ref = `ce-${counter}`;
  await host.organization(`${ref}-org`, country);
  await host.owner(`${ref}-own`, { organization: `${ref}-org` });
  await host.location(`${ref}-loc`, {
    organization: `${ref}-org`,
    owner: `${ref}-own`,
    timezone: zone,
    ...(country === 'IT' ? { address: ROMAN_ADDRESS, geo: { lat: 41.9, lng: 12.48 } } : {}),
  });
  await host.property(`${ref}-p`, {
    location: `${ref}-loc`,
    owner: `${ref}-own`,
    legal,
    ...(country === 'IT' ? ITALIAN_TEXTS : {}),
  });
  await host.distribute(
    `${ref}-p`,
    channels.map((c) => c.name),
  );
  const [row] = await orm.em.fork().execute<{ id: string }[]>('select id from property where ref = ?', [`${ref}-p`]);
  return { id: row!.id, ref: `${ref}-p` };
}

/** The property's write again, with other legal data. */
function renewal(ref: string, legal: Record<string, unknown>) {
  const base = ref.slice(0, -'-p'.length);
  return { location: `${base}-loc`, owner: `${base}-own`, legal };
}

const roLegal = (validUntil: string) => ({
  classification: {
    certificate_number: 'RO-123/2025',
    category: 'apartament',
    rating_kind: 'stars',
    rating: 3,
    valid_until: validUntil,
    country: 'RO',
  },
});
const itLegal = (validUntil: string) => ({
  identifiers: [
    { scheme: 'it.cin', value: 'IT058091C2ABCDEFGH', valid_until: validUntil, issued_by: 'Ministero del Turismo' },
  ],
});

interface View {
  status: string;
  version: number;
  external_id: string;
}

/** What each channel (in name order) holds for the record. */
async function views(kind: 'property' | 'location' | 'owner', internalId: string): Promise<View[]> {
  const rows = await orm.em
    .fork()
    .execute<{ channel_id: string; status: string; version: string; external_id: string }[]>(
      'select channel_id, status, version, external_id from channel_resource where kind = ? and internal_id = ?',
      [kind, internalId],
    );
  return channels.map((c) => {
    const row = rows.find((r) => r.channel_id === c.id);
    return { status: row?.status ?? 'absent', version: Number(row?.version ?? 0), external_id: row?.external_id ?? '' };
  });
}

const statuses = async (kind: 'property' | 'location' | 'owner', id: string) =>
  (await views(kind, id)).map((v) => v.status);

/** The property's events on a channel, in log order. */
/** The property's lifecycle events for one channel (its availability announcements aside). */
async function eventTypes(channelId: string, externalId: string): Promise<string[]> {
  const rows = await orm.em
    .fork()
    .execute<{ type: string }[]>(
      `select type from event where channel_id = ? and data->>'id' = ? and type like 'property.%' order by position`,
      [channelId, externalId],
    );
  return rows.map((row) => row.type);
}

async function sourceIdsOf(ref: string): Promise<{ location: string; owner: string }> {
  const [row] = await orm.em
    .fork()
    .execute<{ location_id: string; owner_id: string }[]>('select location_id, owner_id from property where ref = ?', [
      ref,
    ]);
  return { location: row!.location_id, owner: row!.owner_id };
}

async function timers(workflowId: string, runId?: string): Promise<{ started: number; fired: number[] }> {
  const history = await plain().workflow.getHandle(workflowId, runId).fetchHistory();
  const events = history.events ?? [];
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + Math.round((t?.nanos ?? 0) / 1e6);
  return {
    started: events.filter((e) => e.timerStartedEventAttributes).length,
    fired: events.filter((e) => e.timerFiredEventAttributes).map((e) => ms(e.eventTime)),
  };
}

/** Waits until the workflow sleeps on its `count`-th timer, so the next skip can fire it. */
function sleeping(workflowId: string, count: number): Promise<unknown> {
  return eventually(
    `${workflowId} timers`,
    () => timers(workflowId),
    (t) => t.started >= count,
  );
}

async function searchAttributes(
  workflowId: string,
): Promise<{ state: unknown; expiresOn: unknown; property: unknown; status: string }> {
  const described = await plain().workflow.getHandle(workflowId).describe();
  const sa = described.typedSearchAttributes;
  return {
    state: sa.get(SA_STATE),
    expiresOn: sa.get(SA_EXPIRES_ON) ?? null,
    property: sa.get(SA_PROPERTY),
    status: described.status.name,
  };
}

/**
 * Terminates a workflow once it rests (no activity or workflow task outstanding): the
 * time-skipping server does not skip time again after an activity it handed out to a workflow
 * that was then terminated.
 */
async function stop(workflowId: string, reason: string): Promise<void> {
  const handle = plain().workflow.getHandle(workflowId);
  const resting = async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
    const closed = events.filter(
      (e) =>
        e.activityTaskCompletedEventAttributes ||
        e.activityTaskFailedEventAttributes ||
        e.activityTaskTimedOutEventAttributes,
    ).length;
    const last = events.at(-1);
    return (
      scheduled === closed && !last?.workflowTaskScheduledEventAttributes && !last?.workflowTaskStartedEventAttributes
    );
  };
  await eventually(`${workflowId} at rest`, resting, (done) => done);
  await handle.terminate(reason);
}

async function legalStatus(ref: string): Promise<unknown> {
  const res = await platform(api).call('GET', `/properties/${ref}`);
  expect(res.status).toBe(200);
  return (res.json as { legal_status: unknown }).legal_status;
}

describe('certificate expiry workflow', () => {
  test("withdraws at the local midnight after valid_until in each property's zone (Bucharest, then Rome an hour later)", async () => {
    // 21:30 in Bucharest (20:30 in Rome) on the day both certificates are last valid.
    const day = addDays(zonedDate(await env.currentTimeMs(), BUCHAREST), 1);
    await sleepUntil(startOfLocalDay(day, BUCHAREST) + 21.5 * HOUR);
    const ro = await propertyWith('RO', BUCHAREST, roLegal(day));
    const it = await propertyWith('IT', ROME, itLegal(day));
    const roId = workflowIds.certificateExpiry(ro.id);
    const itId = workflowIds.certificateExpiry(it.id);

    expect(await legalStatus(ro.ref)).toEqual({
      next_expiry: {
        on: addDays(day, 1),
        identifier: { scheme: 'ro.classification', value: 'RO-123/2025', valid_until: day },
        withdraws_from: channels.map((c) => c.name),
      },
    });
    expect(await legalStatus(it.ref)).toEqual({
      next_expiry: {
        on: addDays(day, 1),
        identifier: { scheme: 'it.cin', value: 'IT058091C2ABCDEFGH', valid_until: day },
        withdraws_from: channels.map((c) => c.name),
      },
    });
    await sleeping(roId, 1);
    await sleeping(itId, 1);
    expect(await searchAttributes(roId)).toEqual({
      state: 'waiting',
      expiresOn: addDays(day, 1),
      property: ro.ref,
      status: 'RUNNING',
    });

    // One minute past midnight in Bucharest: 23:01 in Rome.
    await sleepUntil(startOfLocalDay(addDays(day, 1), BUCHAREST) + MINUTE);
    await eventually(
      'RO withdrawn',
      () => statuses('property', ro.id),
      (s) => s.every((x) => x === 'withdrawn'),
    );
    expect(await statuses('property', it.id)).toEqual(['active', 'active']);
    const roPlaces = await sourceIdsOf(ro.ref);
    expect(await statuses('location', roPlaces.location)).toEqual(['withdrawn', 'withdrawn']);
    expect(await statuses('owner', roPlaces.owner)).toEqual(['withdrawn', 'withdrawn']);
    const roView = (await views('property', ro.id))[0]!;
    expect((await eventTypes(channels[0]!.id, roView.external_id)).at(-1)).toBe('property.withdrawn');
    expect(await plain().workflow.getHandle(roId).result()).toBe('lapsed');
    expect(await searchAttributes(roId)).toEqual({
      state: 'lapsed',
      expiresOn: null,
      property: ro.ref,
      status: 'COMPLETED',
    });
    expect(await legalStatus(ro.ref)).toEqual({ next_expiry: null });

    // One minute past midnight in Rome.
    await sleepUntil(startOfLocalDay(addDays(day, 1), ROME) + MINUTE);
    await eventually(
      'IT withdrawn',
      () => statuses('property', it.id),
      (s) => s.every((x) => x === 'withdrawn'),
    );
    const itPlaces = await sourceIdsOf(it.ref);
    expect(await statuses('location', itPlaces.location)).toEqual(['withdrawn', 'withdrawn']);
    expect(await plain().workflow.getHandle(itId).result()).toBe('lapsed');

    // Each timer fired at 00:00 in its own zone.
    expect((await timers(roId)).fired.map((at) => wallClock(at, BUCHAREST))).toEqual([`${addDays(day, 1)} 00:00`]);
    expect((await timers(itId)).fired.map((at) => wallClock(at, ROME))).toEqual([`${addDays(day, 1)} 00:00`]);
  });

  test('a renewal before the expiry moves the withdrawal; one after it brings the property back under the same id with a higher version', async () => {
    const today = zonedDate(await env.currentTimeMs(), BUCHAREST);
    const p = await propertyWith('RO', BUCHAREST, roLegal(today));
    const workflowId = workflowIds.certificateExpiry(p.id);
    await sleeping(workflowId, 1);
    const { runId } = await plain().workflow.getHandle(workflowId).describe();

    // Renewed for 30 more days before midnight: the workflow plans again.
    const renewed = addDays(today, 30);
    await platform(api).property(p.ref, renewal(p.ref, roLegal(renewed)));
    await sleeping(workflowId, 2);
    expect(await searchAttributes(workflowId)).toMatchObject({ state: 'waiting', expiresOn: addDays(renewed, 1) });
    await sleepUntil(startOfLocalDay(addDays(today, 1), BUCHAREST) + HOUR);
    expect(await statuses('property', p.id)).toEqual(['active', 'active']);

    // The renewed certificate lapses.
    await sleepUntil(startOfLocalDay(addDays(renewed, 1), BUCHAREST) + MINUTE);
    await eventually(
      'withdrawn',
      () => statuses('property', p.id),
      (s) => s.every((x) => x === 'withdrawn'),
    );
    expect(await plain().workflow.getHandle(workflowId, runId).result()).toBe('lapsed');
    const withdrawn = await views('property', p.id);
    const history = await timers(workflowId, runId);
    expect(history.fired.map((at) => wallClock(at, BUCHAREST))).toEqual([`${addDays(renewed, 1)} 00:00`]);
    await recordHistory(plain().workflow.getHandle(workflowId, runId), 'certificate-expiry');

    // Renewed a year on, after the withdrawal: back on both channels, same ids, higher versions.
    const again = addDays(renewed, 365);
    await platform(api).property(p.ref, renewal(p.ref, roLegal(again)));
    const back = await views('property', p.id);
    for (const [i, view] of back.entries()) {
      expect(view).toMatchObject({ status: 'active', external_id: withdrawn[i]!.external_id });
      expect(view.version).toBeGreaterThan(withdrawn[i]!.version);
      expect((await eventTypes(channels[i]!.id, view.external_id)).slice(-2)).toEqual([
        'property.withdrawn',
        'property.distributed',
      ]);
    }
    // A new run waits for the new date.
    await eventually(
      're-armed',
      () => searchAttributes(workflowId),
      (sa) => sa.state === 'waiting' && sa.expiresOn === addDays(again, 1),
    );
    await stop(workflowId, 'test done');
  });

  test('the re-projection is idempotent under retries and overlapping writes', async () => {
    const today = zonedDate(await env.currentTimeMs(), BUCHAREST);
    const p = await propertyWith('RO', BUCHAREST, roLegal(today));
    await stop(workflowIds.certificateExpiry(p.id), 'the test applies the expiry itself');
    const activities = certificateExpiryActivities(activityDeps(orm, { client: env.client, taskQueue }));
    // Positions and events (a stamp may rise with no change: it is only a lower bound).
    const log = async () => ({
      positions: await orm.em.fork().execute('select channel_id, last_position from channel_log order by channel_id'),
      events: await orm.em.fork().execute('select count(*) as n from event'),
      views: await orm.em
        .fork()
        .execute('select channel_id, kind, internal_id, status, version from channel_resource order by 1, 2, 3'),
    });
    const midnight = startOfLocalDay(addDays(today, 1), BUCHAREST);

    // Before midnight nothing changes.
    const untouched = await log();
    expect(await activities.applyCertificateExpiry(p.id, midnight - MINUTE)).toEqual({
      before: channels.map((c) => c.name),
      after: channels.map((c) => c.name),
    });
    expect(await log()).toEqual(untouched);

    // At midnight it withdraws once; a retry for the same instant, or a later one, writes nothing.
    expect(await activities.applyCertificateExpiry(p.id, midnight)).toEqual({
      before: channels.map((c) => c.name),
      after: [],
    });
    const once = await log();
    expect(await activities.applyCertificateExpiry(p.id, midnight)).toEqual({ before: [], after: [] });
    expect(await activities.applyCertificateExpiry(p.id, midnight + HOUR)).toEqual({ before: [], after: [] });
    expect(await log()).toEqual(once);

    // Attempts at midnight racing a renewal of a property still shown: whichever commits first,
    // the renewal wins, and a withdrawal is announced at most once, followed by the return. A
    // renewal that commits first is itself a visible change (the new end date): `updated`.
    const q = await propertyWith('RO', BUCHAREST, roLegal(today));
    await stop(workflowIds.certificateExpiry(q.id), 'the test applies the expiry itself');
    await Promise.all([
      platform(api).property(q.ref, renewal(q.ref, roLegal(addDays(today, 400)))),
      activities.applyCertificateExpiry(q.id, midnight),
      activities.applyCertificateExpiry(q.id, midnight),
    ]);
    expect(await statuses('property', q.id)).toEqual(['active', 'active']);
    for (const [i, view] of (await views('property', q.id)).entries()) {
      expect([
        ['property.distributed'],
        ['property.distributed', 'property.updated'],
        ['property.distributed', 'property.withdrawn', 'property.distributed'],
      ]).toContainEqual(await eventTypes(channels[i]!.id, view.external_id));
    }
    await stop(workflowIds.certificateExpiry(q.id), 'test done');
  });

  test('at worker start a property whose workflow is missing gets one, and a running one is left as it is', async () => {
    const today = zonedDate(await env.currentTimeMs(), BUCHAREST);
    const watched = await propertyWith('RO', BUCHAREST, roLegal(addDays(today, 10)));
    const missed = await propertyWith('RO', BUCHAREST, roLegal(addDays(today, 20)));
    await sleeping(workflowIds.certificateExpiry(watched.id), 1);
    const { runId } = await plain().workflow.getHandle(workflowIds.certificateExpiry(watched.id)).describe();
    await stop(workflowIds.certificateExpiry(missed.id), 'as if the write could not reach Temporal');

    // What a worker's start asks for: the catch-up's pass over the properties.
    await createWorkflowClient({
      connect: () => Promise.resolve(plain()),
      taskQueue,
      dispatchPollSeconds: 30,
    }).startCertificateExpiryCatchUp();
    expect(
      await plain().workflow.getHandle(workflowIds.certificateExpiryCatchUp(taskQueue)).result(),
    ).toBeGreaterThanOrEqual(2);
    await eventually(
      'missed watched again',
      () => searchAttributes(workflowIds.certificateExpiry(missed.id)),
      (sa) => sa.status === 'RUNNING' && sa.state === 'waiting',
    );
    expect(await searchAttributes(workflowIds.certificateExpiry(missed.id))).toEqual({
      state: 'waiting',
      expiresOn: addDays(today, 21),
      property: missed.ref,
      status: 'RUNNING',
    });
    expect((await plain().workflow.getHandle(workflowIds.certificateExpiry(watched.id)).describe()).runId).toBe(runId);
    for (const p of [watched, missed]) await stop(workflowIds.certificateExpiry(p.id), 'test done');
  });

  test("a location moved to another zone moves the withdrawal to that zone's midnight", async () => {
    const newYork = 'America/New_York';
    // 18:00 in Bucharest (11:00 in New York) on the certificate's last day.
    const day = addDays(zonedDate(await env.currentTimeMs(), BUCHAREST), 1);
    await sleepUntil(startOfLocalDay(day, BUCHAREST) + 18 * HOUR);
    const p = await propertyWith('RO', BUCHAREST, roLegal(day));
    const workflowId = workflowIds.certificateExpiry(p.id);
    await sleeping(workflowId, 1);
    const base = p.ref.slice(0, -'-p'.length);
    await platform(api).location(`${base}-loc`, {
      ...sampleLocation(`${base}-org`, `${base}-own`),
      organization: `${base}-org`,
      owner: `${base}-own`,
      timezone: newYork,
    });
    await sleeping(workflowId, 2);
    await sleepUntil(startOfLocalDay(addDays(day, 1), BUCHAREST) + MINUTE);
    expect(await statuses('property', p.id)).toEqual(['active', 'active']);
    await sleepUntil(startOfLocalDay(addDays(day, 1), newYork) + MINUTE);
    await eventually(
      'withdrawn',
      () => statuses('property', p.id),
      (s) => s.every((x) => x === 'withdrawn'),
    );
    expect((await timers(workflowId)).fired.map((at) => wallClock(at, newYork))).toEqual([`${addDays(day, 1)} 00:00`]);
    expect(await plain().workflow.getHandle(workflowId).result()).toBe('lapsed');
  });

  test('a run continues as new after its plans and the next run keeps the date', async () => {
    const today = zonedDate(await env.currentTimeMs(), BUCHAREST);
    const p = await propertyWith('RO', BUCHAREST, roLegal(addDays(today, 5)));
    const workflowId = workflowIds.certificateExpiry(p.id);
    await stop(workflowId, 'restarted below with a short run');
    const input: CertificateExpiryInput = { propertyId: p.id, plansPerRun: 1 };
    const handle = await plain().workflow.start('certificateExpiry', { workflowId, taskQueue, args: [input] });
    await sleeping(workflowId, 1);
    await platform(api).property(p.ref, renewal(p.ref, roLegal(addDays(today, 9))));
    await eventually(
      'next run',
      () => plain().workflow.getHandle(workflowId).describe(),
      (d) => d.runId !== handle.firstExecutionRunId,
    );
    await eventually(
      'next run plans',
      () => searchAttributes(workflowId),
      (sa) => sa.state === 'waiting' && sa.expiresOn === addDays(today, 10),
    );
    const first = await plain().workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory();
    expect(first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    await stop(workflowId, 'test done');
  });
});
