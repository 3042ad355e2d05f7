import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import { ChannelSync, MemorySyncStore } from '../../clients/channel-kit/src/index.ts';
import { rollHorizon } from '../../services/availability.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import { kitClient } from '../support/channel-kit.ts';
import { TestClock } from '../support/clock.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

// A channel that follows docs/channels.md literally reads every range the service announces, and
// the whole horizon, without a refusal: each `availability.updated` re-read as
// `GET /availability?property_id=…&from=…&to=…`, a full pull without `from` and `to`, and one
// window over properties in zones a day apart. 10:30 UTC is 12:30 in Bucharest and 00:30 the next
// day in Kiritimati (UTC+14).

const BASE = '/api/v1/distribution';
const START = '2026-11-22T10:30:00Z';
const BUCHAREST_TODAY = '2026-11-22';
const KIRITIMATI_TODAY = '2026-11-23';
let api: TestApi;
let clock: TestClock;
let host: Platform;
let orm: MikroORM;
let key: string;
/** The channel's ids of the property in Bucharest and the one in Kiritimati. */
let bucharest: string;
let kiritimati: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock(START) });
  ({ api, clock, host, orm } = bed);
  const { channel, key: issued } = await bed.channel({ scopes: ['read:catalog', 'read:ari'], rateLimit: 10_000 });
  key = issued.key;
  await host.organization('hr-org');
  await host.owner('hr-own', { organization: 'hr-org' });
  await host.location('hr-buh', { organization: 'hr-org', owner: 'hr-own' });
  await host.location('hr-kir', { organization: 'hr-org', owner: 'hr-own', timezone: 'Pacific/Kiritimati' });
  for (const [ref, location] of [
    ['hr-p-buh', 'hr-buh'],
    ['hr-p-kir', 'hr-kir'],
  ] as const) {
    await host.property(ref, { location, owner: 'hr-own' });
    await host.distribute(ref, [channel.name]);
  }
  const ids = await orm.em
    .fork()
    .execute<{ ref: string; external_id: string }[]>(
      `select p.ref, r.external_id from property p join channel_resource r on r.internal_id = p.id and r.kind = 'property' where r.channel_id = ?`,
      [channel.id],
    );
  bucharest = ids.find((row) => row.ref === 'hr-p-buh')!.external_id;
  kiritimati = ids.find((row) => row.ref === 'hr-p-kir')!.external_id;
});

const get = async (path: string) => {
  const res = await api.call('GET', `${BASE}${path}`, { key });
  expectMatchesDescription('GET', `${BASE}${path}`, res);
  return res;
};

interface Announced {
  id: string;
  from: string;
  to: string;
}

/** Every `availability.updated` the channel was told of, in log order. */
async function announced(): Promise<Announced[]> {
  const res = await get('/events?limit=500');
  expect(res.status, res.text).toBe(200);
  return (res.json.data as { type: string; data: Announced }[])
    .filter((event) => event.type === 'availability.updated')
    .map(({ data }) => ({ id: data.id, from: data.from, to: data.to }));
}

interface NightRecord {
  property_id: string;
  from: string;
  to: string;
  horizon_end: string;
  data: { date: string; units_available: number }[];
}

/** Step 5 of the sync loop, as written: the announced range read back, every night of it. */
async function reread(event: Announced): Promise<NightRecord> {
  const res = await get(`/availability?property_id=${event.id}&from=${event.from}&to=${event.to}`);
  expect(res.status, `${JSON.stringify(event)}: ${res.text}`).toBe(200);
  const [record] = res.json.data as NightRecord[];
  expect(record!.data.map((night) => night.date)).toEqual(dates(event.from, event.to));
  expect(record!.to).toBe(event.to);
  expect(event.to <= record!.horizon_end).toBe(true);
  return record!;
}

function dates(from: string, to: string): string[] {
  const out: string[] = [];
  for (let date = from; date < to; date = addDays(date, 1)) out.push(date);
  return out;
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

describe('GET /availability reads what the service announces and the whole horizon', () => {
  test('a full pull without from and to gets every night up to each property horizon_end, 365 nights', async () => {
    const res = await get('/availability');
    expect(res.status, res.text).toBe(200);
    const records = new Map((res.json.data as NightRecord[]).map((record) => [record.property_id, record]));
    for (const [id, today] of [
      [bucharest, BUCHAREST_TODAY],
      [kiritimati, KIRITIMATI_TODAY],
    ] as const) {
      const record = records.get(id)!;
      expect(record.horizon_end).toBe(addDays(today, 365));
      expect(record.data.map((night) => night.date)).toEqual(dates(today, record.horizon_end));
    }

    // The channel kit's sync, pulling nights too: it holds the same nights.
    const store = new MemorySyncStore();
    await new ChannelSync(kitClient(api, key), { store, availability: true }).sync();
    expect([...store.nights(bucharest).keys()]).toEqual(dates(BUCHAREST_TODAY, addDays(BUCHAREST_TODAY, 365)));
    expect([...store.nights(kiritimati).keys()]).toEqual(dates(KIRITIMATI_TODAY, addDays(KIRITIMATI_TODAY, 365)));
  });

  test('one window from the earliest today to the latest horizon_end reads properties in zones a day apart', async () => {
    const path = `/availability?from=${BUCHAREST_TODAY}&to=${addDays(KIRITIMATI_TODAY, 365)}`;
    const res = await get(path);
    expect(res.status, res.text).toBe(200);
    const records = new Map((res.json.data as NightRecord[]).map((record) => [record.property_id, record]));
    // Each property's nights stop at its own horizon_end.
    expect(records.get(bucharest)).toMatchObject({
      from: BUCHAREST_TODAY,
      to: '2027-11-22',
      horizon_end: '2027-11-22',
    });
    expect(records.get(bucharest)!.data).toHaveLength(365);
    expect(records.get(kiritimati)).toMatchObject({
      from: KIRITIMATI_TODAY,
      to: '2027-11-23',
      horizon_end: '2027-11-23',
    });
    expect(records.get(kiritimati)!.data).toHaveLength(365);

    // One property is held to its own horizon; past the latest, a listing is refused too.
    const one = await get(`/availability?property_id=${bucharest}&from=${BUCHAREST_TODAY}&to=2027-11-23`);
    expectProblem(one, 400, 'invalid_parameters', ['errors']);
    expect(one.json.errors).toEqual([expect.objectContaining({ parameter: 'to', code: 'max_nights' })]);
    const past = await get(`/availability?property_id=${bucharest}&from=2026-12-01&to=2027-11-23`);
    expectProblem(past, 400, 'window_beyond_horizon', ['horizon_end']);
    expect(past.json.horizon_end).toBe('2027-11-22');
    const beyond = await get(`/availability?from=2026-12-01&to=2027-11-24`);
    expectProblem(beyond, 400, 'window_beyond_horizon', ['horizon_end']);
    expect(beyond.json.horizon_end).toBe('2027-11-23');
    const long = await get(`/availability?from=${BUCHAREST_TODAY}&to=2027-11-24`);
    expectProblem(long, 400, 'invalid_parameters', ['errors']);
    expect(long.json.errors).toEqual([expect.objectContaining({ parameter: 'to', code: 'max_nights' })]);
  });

  // Moves the clock past Bucharest's midnight: keep it last.
  test('every announced range is read back whole: distribution, a year of updates, and the roll after local midnight', async () => {
    // Units over every night stored, the spare one past the horizon included (366 nights from today).
    const update = (today: string, units: number) =>
      host.call('POST', '/availability', {
        updates: [{ property: 'hr-p-buh', from: today, to: addDays(today, 366), units_available: units }],
      });
    expect((await update(BUCHAREST_TODAY, 0)).status).toBe(200);
    const before = await announced();
    for (const event of before) await reread(event);
    expect(before.filter((event) => event.id === bucharest).at(-1)).toEqual({
      id: bucharest,
      from: BUCHAREST_TODAY,
      to: '2027-11-22',
    });

    // 00:00:30 in Bucharest: horizon_end moved at midnight, before the roll.
    clock.set('2026-11-22T22:00:30Z');
    const pulled = await get(`/availability?property_id=${bucharest}`);
    expect(pulled.json.data[0]).toMatchObject({ from: '2026-11-23', to: '2027-11-23', horizon_end: '2027-11-23' });
    // The night midnight published was written by the year of updates (the spare night then).
    expect(pulled.json.data[0].data.at(-1)).toMatchObject({ date: '2027-11-22', units_available: 0 });

    // The roll announces that night, once, and the channel reads it.
    expect(await rollHorizon({ orm }, 'Europe/Bucharest', clock)).toMatchObject({ rolled: 1 });
    const after = (await announced()).slice(before.length);
    expect(after).toEqual([{ id: bucharest, from: '2027-11-22', to: '2027-11-23' }]);
    const night = await reread(after[0]!);
    expect(night.data[0]!.units_available).toBe(0);

    // Updates today: 366 nights change, the spare one past horizon_end is written, not announced.
    const written = await update('2026-11-23', 2);
    expect(written.json.results).toEqual([
      { property: 'hr-p-buh', changed_nights: 366, ranges: [{ from: '2026-11-23', to: '2027-11-24' }] },
    ]);
    const latest = (await announced()).slice(before.length + after.length);
    expect(latest).toEqual([{ id: bucharest, from: '2026-11-23', to: '2027-11-23' }]);
    for (const event of latest) await reread(event);
  });
});
