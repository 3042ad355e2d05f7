import type { MikroORM } from '@mikro-orm/postgresql';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import { availabilityActivities } from '../../activities/availability.ts';
import { addDays } from '../../domain/time.ts';
import { horizonEnd } from '../../domain/availability/nights.ts';
import { startOfLocalDay, zonedDate } from '../../domain/availability/zones.ts';
import { systemClock } from '../../domain/clock.ts';
import { rollHorizon } from '../../services/availability.ts';
import { createWorkflowClient } from '../../services/workflow-client.ts';
import type { HorizonRollInput } from '../../workflows/horizon-roll.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { daysUpTo } from '../support/partitions.ts';
import { wallClock } from '../support/clock.ts';
import { recordHistory, timeSkippingEnvironment } from '../support/time-skipping.ts';
import { activityDeps, runTestWorker } from '../support/worker.ts';

// The daily horizon roll on the time-skipping server against a real Postgres: months pass in
// seconds, so the roll is seen across daylight-saving changes and across the date line.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let env: TestWorkflowEnvironment;
let orm: MikroORM;
let api: TestApi;
let taskQueue: string;
let channel: { id: string; name: string };

beforeAll(async () => {
  env = await timeSkippingEnvironment();
  // Each test starts and times the rolls it checks itself, so the API does not start them.
  const bed = await apiTestBed({
    clock: systemClock,
    temporal: env.client,
    taskQueue: 'horizon',
    env: { DISPATCH_POLL_SECONDS: String(30 * 86_400), HORIZON_ROLLS_FROM_API: 'false' },
  });
  ({ api, orm } = bed);
  taskQueue = bed.taskQueue!;
  ({ channel } = await bed.channel());
  await runTestWorker(env, orm, { taskQueue });
});

/** Results and histories through a plain client: time moves only by `env.sleep`. */
function plain(): Client {
  return new Client({ connection: env.connection });
}

function ensureHorizonRolls(client: Client, taskQueue: string, zones: string[]): Promise<void> {
  return createWorkflowClient({
    connect: () => Promise.resolve(client),
    taskQueue,
    dispatchPollSeconds: 30,
  }).ensureHorizonRolls(zones);
}

/** Skips to `instant`; the days the roll writes its events in exist, as the housekeeping pass keeps them. */
async function sleepUntil(instant: number): Promise<void> {
  const now = await env.currentTimeMs();
  await daysUpTo(orm, new Date(instant + 2 * DAY), new Date(instant - DAY));
  if (instant > now) await env.sleep(instant - now);
}

let counter = 0;
/** A property in a location of `zone`, distributed to the file's channel; its availability starts at real today. */
async function propertyIn(zone: string): Promise<{ id: string; externalId: string }> {
  counter += 1;
  const host = platform(api);
  const ref = `hz-${counter}`;
  await host.organization(`${ref}-org`);
  await host.owner(`${ref}-own`, { organization: `${ref}-org` });
  await host.location(`${ref}-loc`, { organization: `${ref}-org`, owner: `${ref}-own`, timezone: zone });
  await host.property(`${ref}-p`, { location: `${ref}-loc`, owner: `${ref}-own` });
  await host.distribute(`${ref}-p`, [channel.name]);
  const [row] = await orm.em
    .fork()
    .execute<{ id: string; external_id: string }[]>(
      `select p.id, r.external_id from property p join channel_resource r on r.internal_id = p.id and r.kind = 'property' where p.ref = ? and r.channel_id = ?`,
      [`${ref}-p`, channel.id],
    );
  return { id: row!.id, externalId: row!.external_id };
}

interface Ari {
  first: string | null;
  last: string | null;
  nights: number;
  horizonEnd: string;
  version: number;
}

async function ari(propertyId: string): Promise<Ari> {
  const [row] = await orm.em
    .fork()
    .execute<{ first: string | null; last: string | null; nights: string; horizon_end: string; version: string }[]>(
      `select (select to_char(min(night), 'YYYY-MM-DD') from ari_night where property_id = a.property_id) as first,
            (select to_char(max(night), 'YYYY-MM-DD') from ari_night where property_id = a.property_id) as last,
            (select count(*) from ari_night where property_id = a.property_id) as nights,
            to_char(a.horizon_end, 'YYYY-MM-DD') as horizon_end, a.version
       from ari_property a where a.property_id = ?`,
      [propertyId],
    );
  return {
    first: row!.first,
    last: row!.last,
    nights: Number(row!.nights),
    horizonEnd: row!.horizon_end,
    version: Number(row!.version),
  };
}

/** Waits until the property's availability is rolled for the local date `today`, then checks it whole. */
async function rolledTo(propertyId: string, today: string): Promise<Ari> {
  const deadline = Date.now() + 10_000;
  let state = await ari(propertyId);
  while (state.first !== today || state.horizonEnd !== horizonEnd(today)) {
    if (Date.now() > deadline)
      throw new Error(`property ${propertyId} not rolled to ${today}: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    state = await ari(propertyId);
  }
  expect(state).toMatchObject({
    first: today,
    last: addDays(today, 365),
    nights: 366,
    horizonEnd: addDays(today, 366),
  });
  return state;
}

/** The `horizon_end` channels read on the local date `today`: 365 nights on (the roll stores one more). */
const published = (today: string) => addDays(today, 365);

/** The `availability.updated` ranges the channel was told for one property, in log order. */
async function announced(externalId: string): Promise<{ from: string; to: string }[]> {
  const rows = await orm.em
    .fork()
    .execute<{ data: { object: string; id: string; from: string; to: string } }[]>(
      `select data from event where channel_id = ? and type = 'availability.updated' and data->>'id' = ? order by position`,
      [channel.id, externalId],
    );
  return rows.map(({ data }) => {
    expect(data.object).toBe('property');
    return { from: data.from, to: data.to };
  });
}

interface Timers {
  /** Each timer's duration in ms. */
  delays: number[];
  /** When each fired timer fired (server time). */
  fired: number[];
}

async function timers(workflowId: string): Promise<Timers> {
  const history = await plain().workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + Math.round((t?.nanos ?? 0) / 1e6);
  return {
    delays: events
      .filter((e) => e.timerStartedEventAttributes)
      .map((e) => ms(e.timerStartedEventAttributes!.startToFireTimeout)),
    fired: events.filter((e) => e.timerFiredEventAttributes).map((e) => ms(e.eventTime)),
  };
}

/** Waits until the workflow sleeps on its `count`-th timer, so the next skip fires it. */
async function sleeping(workflowId: string, count: number): Promise<Timers> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = await timers(workflowId);
    if (found.delays.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${workflowId} has ${found.delays.length} timers, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Days searched for daylight-saving changes: two years hold at least two in a zone that has them. */
const DST_SEARCH_DAYS = 2 * 366;

/**
 * The next `count` local dates after `from` whose day is not 24 hours long in `zone`; throws when
 * two years hold fewer (a zone without daylight saving) instead of searching for ever.
 */
function dstDays(from: number, zone: string, count: number): { date: string; hours: number }[] {
  const days: { date: string; hours: number }[] = [];
  let date = zonedDate(from, zone);
  for (let searched = 0; days.length < count; searched += 1, date = addDays(date, 1)) {
    if (searched >= DST_SEARCH_DAYS)
      throw new Error(
        `${zone}: ${days.length} of ${count} daylight-saving days in the ${DST_SEARCH_DAYS} days after ${zonedDate(from, zone)}`,
      );
    const length = startOfLocalDay(addDays(date, 1), zone) - startOfLocalDay(date, zone);
    if (length !== DAY && startOfLocalDay(date, zone) > from + 6 * HOUR) days.push({ date, hours: length / HOUR });
  }
  return days;
}

describe('the search for daylight-saving days', () => {
  test('finds the 23 h and 25 h days of a zone with daylight saving', () => {
    expect(dstDays(Date.parse('2026-01-01T00:00:00Z'), 'Europe/Bucharest', 2)).toEqual([
      { date: '2026-03-29', hours: 23 },
      { date: '2026-10-25', hours: 25 },
    ]);
  });

  test.each(['UTC', 'Asia/Tokyo'])('ends with a clear error for %s, which has none', (zone) => {
    expect(() => dstDays(Date.parse('2026-01-01T00:00:00Z'), zone, 2)).toThrow(
      `${zone}: 0 of 2 daylight-saving days in the 732 days after 2026-01-01`,
    );
  });
});

describe('horizon roll workflow', () => {
  test('rolls at each local midnight across both daylight-saving changes (23 h and 25 h days)', async () => {
    const zone = 'Europe/Bucharest';
    const workflowId = workflowIds.horizonRoll(taskQueue, zone);
    const property = await propertyIn(zone);
    const [spring, autumn] = dstDays(await env.currentTimeMs(), zone, 2);
    expect([spring!.hours, autumn!.hours].sort()).toEqual([23, 25]);

    for (const [i, dst] of [spring!, autumn!].entries()) {
      const midnight = startOfLocalDay(dst.date, zone);
      const eve = addDays(dst.date, -1);
      // No roll runs while months are skipped; started on the eve, it catches up at once.
      await sleepUntil(midnight - 3 * HOUR);
      const before = await ari(property.id);
      await ensureHorizonRolls(plain(), taskQueue, [zone]);
      await ensureHorizonRolls(plain(), taskQueue, [zone]); // idempotent: the same run
      await rolledTo(property.id, eve);
      // The nights published since the last roll announced its own: from its published end.
      expect((await announced(property.externalId)).at(-1)).toEqual({
        from: addDays(before.horizonEnd, -1),
        to: published(eve),
      });
      await sleeping(workflowId, 1);

      // Local midnight of the daylight-saving day.
      await sleepUntil(midnight + MINUTE);
      await rolledTo(property.id, dst.date);
      expect((await announced(property.externalId)).at(-1)).toEqual({
        from: published(eve),
        to: published(dst.date),
      });
      await sleeping(workflowId, 2);

      // The next local midnight, 23 or 25 hours later.
      const next = addDays(dst.date, 1);
      await sleepUntil(startOfLocalDay(next, zone) + MINUTE);
      await rolledTo(property.id, next);
      expect((await announced(property.externalId)).at(-1)).toEqual({
        from: published(dst.date),
        to: published(next),
      });
      const { delays, fired } = await sleeping(workflowId, 3);

      // Each timer fired at 00:00 local, the one over the daylight-saving day after 23 or 25 h.
      expect(fired).toHaveLength(2);
      expect(fired.map((at) => wallClock(at, zone))).toEqual([`${dst.date} 00:00`, `${next} 00:00`]);
      expect(Math.abs(delays[0]! - 3 * HOUR)).toBeLessThan(MINUTE);
      expect(Math.abs(delays[1]! - dst.hours * HOUR)).toBeLessThan(MINUTE);
      expect(Math.abs(delays[2]! - DAY)).toBeLessThan(MINUTE);

      const handle = plain().workflow.getHandle(workflowId);
      if (i === 0) await recordHistory(handle, 'horizon-roll');
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test: skip to the next daylight-saving change');
    }
  });

  test('across the date line each zone rolls its own property at its own midnight', async () => {
    const kiritimati = 'Pacific/Kiritimati'; // UTC+14
    const pagoPago = 'Pacific/Pago_Pago'; // UTC-11
    const east = await propertyIn(kiritimati);
    const west = await propertyIn(pagoPago);
    // 09:30 UTC: 23:30 in Kiritimati, 22:30 the day before in Pago Pago.
    const now = await env.currentTimeMs();
    let start = Date.UTC(
      new Date(now).getUTCFullYear(),
      new Date(now).getUTCMonth(),
      new Date(now).getUTCDate(),
      9,
      30,
    );
    while (start < now + HOUR) start += DAY;
    const day = new Date(start).toISOString().slice(0, 10);
    await sleepUntil(start);
    await ensureHorizonRolls(plain(), taskQueue, [kiritimati, pagoPago]);
    await rolledTo(east.id, day);
    await rolledTo(west.id, addDays(day, -1));
    await sleeping(workflowIds.horizonRoll(taskQueue, kiritimati), 1);
    await sleeping(workflowIds.horizonRoll(taskQueue, pagoPago), 1);

    // 10:15 UTC: Kiritimati's midnight passed, Pago Pago's not: the two are two local days apart.
    await env.sleep(45 * MINUTE);
    await rolledTo(east.id, addDays(day, 1));
    expect(zonedDate(await env.currentTimeMs(), kiritimati)).toBe(addDays(day, 1));
    await sleeping(workflowIds.horizonRoll(taskQueue, kiritimati), 2);
    expect((await ari(west.id)).first).toBe(addDays(day, -1));
    expect(zonedDate(await env.currentTimeMs(), pagoPago)).toBe(addDays(day, -1));

    // 11:15 UTC: Pago Pago's midnight.
    await env.sleep(HOUR);
    await rolledTo(west.id, day);
    await sleeping(workflowIds.horizonRoll(taskQueue, pagoPago), 2);
    expect((await ari(east.id)).first).toBe(addDays(day, 1));
    // Each property was told of its own catch-up roll, then of its one new night.
    expect((await announced(east.externalId)).slice(-2)).toEqual([
      { from: expect.any(String), to: published(day) },
      { from: published(day), to: published(addDays(day, 1)) },
    ]);
    expect((await announced(west.externalId)).slice(-2)).toEqual([
      { from: expect.any(String), to: published(addDays(day, -1)) },
      { from: published(addDays(day, -1)), to: published(day) },
    ]);
    // Each midnight's timer fired at 00:00 in its own zone.
    const eastFired = (await timers(workflowIds.horizonRoll(taskQueue, kiritimati))).fired;
    const westFired = (await timers(workflowIds.horizonRoll(taskQueue, pagoPago))).fired;
    expect(eastFired.map((at) => wallClock(at, kiritimati))).toEqual([`${addDays(day, 1)} 00:00`]);
    expect(westFired.map((at) => wallClock(at, pagoPago))).toEqual([`${day} 00:00`]);
    for (const zone of [kiritimati, pagoPago])
      await plain().workflow.getHandle(workflowIds.horizonRoll(taskQueue, zone)).terminate('test done');
  });

  test('a run continues as new after its days and the next run rolls on', async () => {
    const zone = 'Asia/Kolkata'; // UTC+5:30
    const workflowId = workflowIds.horizonRoll(taskQueue, zone);
    const property = await propertyIn(zone);
    const input: HorizonRollInput = { zone, rollsPerRun: 3 };
    const handle = await plain().workflow.start('horizonRoll', { workflowId, taskQueue, args: [input] });
    await rolledTo(property.id, zonedDate(await env.currentTimeMs(), zone));
    const rolled = (await announced(property.externalId)).length;
    await sleeping(workflowId, 1);

    // Seven midnights: the first run rolls 3 days, the second 3, the third goes on.
    await env.sleep(7 * DAY);
    await rolledTo(property.id, zonedDate(await env.currentTimeMs(), zone));
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.runId).not.toBe(handle.firstExecutionRunId);
    const first = await plain().workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory();
    expect(first.events!.filter((e) => e.timerFiredEventAttributes)).toHaveLength(3);
    expect(first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // One new night a day, every day, none twice.
    expect((await announced(property.externalId)).length - rolled).toBe(7);
    await handle.terminate('test done');
  });

  test('a second roll of the same local day changes nothing', async () => {
    const zone = 'Asia/Tokyo';
    const property = await propertyIn(zone);
    // Two days on, so the first roll below has a day to roll (no roll workflow runs now).
    await env.sleep(2 * DAY);
    const now = await env.currentTimeMs();
    const today = zonedDate(now, zone);
    const clock = { now: () => new Date(now) };
    const snapshot = async () => {
      const [nights] = await orm.em
        .fork()
        .execute<{ digest: string }[]>(
          `select md5(string_agg(to_char(night, 'YYYY-MM-DD') || body, '|' order by night)) as digest from ari_night where property_id = ?`,
          [property.id],
        );
      const [events] = await orm.em
        .fork()
        .execute<{ n: string; last: string | null }[]>(
          'select count(*) as n, max(position) as last from event where channel_id = ?',
          [channel.id],
        );
      const [log] = await orm.em
        .fork()
        .execute<unknown[]>('select last_position, last_stamp from channel_log where channel_id = ?', [channel.id]);
      const [row] = await orm.em
        .fork()
        .execute<unknown[]>('select version, updated_at, horizon_end from ari_property where property_id = ?', [
          property.id,
        ]);
      return { ari: await ari(property.id), nights: nights!.digest, events, log, row };
    };

    // The first roll of the day moves the horizon.
    expect(await rollHorizon({ orm }, zone, clock)).toEqual({ properties: 1, rolled: 1 });
    await rolledTo(property.id, today);
    const once = await snapshot();
    expect(await rollHorizon({ orm }, zone, clock)).toEqual({ properties: 1, rolled: 0 });
    expect(await snapshot()).toEqual(once);

    // The activity, later the same local day (and again for the same instant): still nothing.
    const activities = availabilityActivities(activityDeps(orm, { client: env.client, taskQueue }));
    const later = startOfLocalDay(addDays(today, 1), zone) - MINUTE;
    expect(await activities.rollHorizon(zone, later)).toEqual({ properties: 1, rolled: 0, today });
    expect(await activities.rollHorizon(zone, now)).toEqual({ properties: 1, rolled: 0, today });
    expect(await snapshot()).toEqual(once);
    expect(await activities.zonesToRoll()).toContain(zone);
  });
});
