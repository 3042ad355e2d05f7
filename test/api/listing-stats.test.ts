import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { listingTables, pointers } from '../support/listings.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
// 22:30 UTC: already the 23rd in Bucharest (UTC+2), still the 22nd in Los Angeles (UTC-8).
const NOW = '2026-11-22T22:30:00Z';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm } = await apiTestBed({ clock: new TestClock(NOW) }));
});

let counter = 0;
/** A channel shown one property in Bucharest's zone and one in Los Angeles's. */
async function setup() {
  counter += 1;
  clock.set(NOW);
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] });
  const p = `sts${counter}`;
  await host.organization(`${p}-org`);
  await host.owner(`${p}-own`, { organization: `${p}-org` });
  await host.location(`${p}-ro`, { organization: `${p}-org`, owner: `${p}-own` });
  await host.location(`${p}-us`, { organization: `${p}-org`, owner: `${p}-own`, timezone: 'America/Los_Angeles' });
  const ids: Record<'ro' | 'us', string> = { ro: '', us: '' };
  for (const zone of ['ro', 'us'] as const) {
    await host.property(`${p}-${zone}-p`, { location: `${p}-${zone}`, owner: `${p}-own` });
    await host.distribute(`${p}-${zone}-p`, [channel.name]);
    const list = await api.call('GET', `${BASE}/properties?limit=10`, { key: key.key });
    ids[zone] = (list.json.data as { id: string }[]).map((property) => property.id).find((id) => id !== ids.ro)!;
  }
  return { channel: channel.name, key: key.key, ids, refs: { ro: `${p}-ro-p`, us: `${p}-us-p` } };
}

const post = async (key: string, body: unknown) => {
  const res = await api.call('POST', `${BASE}/listing-stats`, { key, body });
  expectMatchesDescription('POST', `${BASE}/listing-stats`, res);
  return res;
};
const stats = async (ref: string, query = 'from=2026-10-01&to=2026-12-01') => {
  const res = await host.call('GET', `/properties/${ref}/stats?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const day = (property_id: string, date: string, views = 10, clicks_to_booking = 1) => ({
  property_id,
  date,
  views,
  clicks_to_booking,
});

describe('POST /listing-stats', () => {
  test('days are stored and a later report of the same day replaces the earlier one', async () => {
    const { key, ids, refs, channel } = await setup();
    const first = await post(key, { data: [day(ids.ro, '2026-11-20', 100, 4), day(ids.ro, '2026-11-21', 50, 0)] });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({ accepted: 2 });
    const again = await post(key, { data: [day(ids.ro, '2026-11-21', 80, 80)] });
    expect(again.json).toEqual({ accepted: 1 });
    expect(await stats(refs.ro)).toEqual({
      property: refs.ro,
      from: '2026-10-01',
      to: '2026-12-01',
      data: [
        {
          channel,
          days: [
            { date: '2026-11-20', views: 100, clicks_to_booking: 4 },
            { date: '2026-11-21', views: 80, clicks_to_booking: 80 },
          ],
        },
      ],
    });
  });

  test("the window is the property's last 35 days through its today, in its own time zone", async () => {
    const { key, ids, refs } = await setup();
    // Bucharest: today is 2026-11-23, the oldest day 2026-10-19.
    expect((await post(key, { data: [day(ids.ro, '2026-11-23'), day(ids.ro, '2026-10-19')] })).json).toEqual({
      accepted: 2,
    });
    expect(pointers(await post(key, { data: [day(ids.ro, '2026-11-24'), day(ids.ro, '2026-10-18')] }))).toEqual([
      ['/data/0/date', 'in_the_future'],
      ['/data/1/date', 'too_old'],
    ]);
    // Los Angeles: today is still 2026-11-22, the oldest day 2026-10-18.
    expect(pointers(await post(key, { data: [day(ids.us, '2026-11-23')] }))).toEqual([
      ['/data/0/date', 'in_the_future'],
    ]);
    expect((await post(key, { data: [day(ids.us, '2026-11-22'), day(ids.us, '2026-10-18')] })).json).toEqual({
      accepted: 2,
    });
    expect(pointers(await post(key, { data: [day(ids.us, '2026-10-17')] }))).toEqual([['/data/0/date', 'too_old']]);
    // At 08:00 UTC Los Angeles reaches the 23rd: its window moves on by a day.
    clock.set('2026-11-23T08:00:01Z');
    expect((await post(key, { data: [day(ids.us, '2026-11-23')] })).json).toEqual({ accepted: 1 });
    expect(pointers(await post(key, { data: [day(ids.us, '2026-10-18')] }))).toEqual([['/data/0/date', 'too_old']]);
    expect((await stats(refs.ro)).data[0].days.map((d: { date: string }) => d.date)).toEqual([
      '2026-10-19',
      '2026-11-23',
    ]);
    expect((await stats(refs.us)).data[0].days.map((d: { date: string }) => d.date)).toEqual([
      '2026-10-18',
      '2026-11-22',
      '2026-11-23',
    ]);
  });

  test('the whole request is refused, with one entry per failed rule and nothing written', async () => {
    const { key, ids } = await setup();
    const other = await setup();
    await post(key, { data: [day(ids.ro, '2026-11-01', 5, 5)] });
    const before = await listingTables(orm);
    const res = await post(key, {
      data: [
        day(ids.ro, '2026-11-02', 7, 2),
        day(ids.ro, '2026-11-03', 3, 4),
        day(ids.ro, '2026-11-04', -1, 0),
        day(ids.ro, '2026-11-05', 1.5, 0),
        day(ids.ro, '2026-11-31'),
        { ...day(ids.ro, '2026-11-06'), extra: true },
        { property_id: ids.ro, date: '2026-11-07', views: 1 },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(pointers(res)).toEqual([
      ['/data/1/clicks_to_booking', 'exceeds_views'],
      ['/data/2/views', 'min'],
      ['/data/3/views', 'type'],
      ['/data/4/date', 'date_format'],
      ['/data/5/extra', 'unknown_field'],
      ['/data/6/clicks_to_booking', 'required'],
    ]);
    const unseen = await post(key, {
      data: [
        day(ids.ro, '2026-11-02'),
        day(other.ids.ro, '2026-11-02'),
        day('prp_0aaaaaaaaaaaaaaaaaaaaaaaaa', '2026-11-02'),
        day('nope', '2026-11-02'),
        day(ids.ro, '2026-11-02'),
        day(ids.ro, '2026-11-30'),
      ],
    });
    expect(pointers(unseen)).toEqual([
      ['/data/1/property_id', 'not_found'],
      ['/data/2/property_id', 'not_found'],
      ['/data/3/property_id', 'not_found'],
      ['/data/4/date', 'duplicate'],
      ['/data/5/date', 'in_the_future'],
    ]);
    expect(pointers(await post(key, { data: [] }))).toEqual([['/data', 'min']]);
    expect(pointers(await post(key, { data: Array.from({ length: 1001 }, () => day(ids.ro, '2026-11-02')) }))).toEqual([
      ['/data', 'max'],
    ]);
    // The body cap of this operation (256 KiB) is above the interface's 64 KiB, and still a cap.
    expectProblem(await post(key, { data: [day('x'.repeat(300_000), '2026-11-02')] }), 413, 'payload_too_large');
    expect(await listingTables(orm)).toEqual(before);
  });

  test('1,000 entries are taken in one request', async () => {
    const { key, channel } = await setup();
    const p = `sts${counter}`;
    // 29 properties x the 35 days inside both zones' windows cover 1,000 distinct (property, date) pairs.
    for (let i = 0; i < 27; i += 1) {
      await host.property(`${p}-more-${i}`, { location: `${p}-ro`, owner: `${p}-own` });
      await host.distribute(`${p}-more-${i}`, [channel]);
    }
    const list = await api.call('GET', `${BASE}/properties?limit=100`, { key });
    const properties = (list.json.data as { id: string }[]).map((property) => property.id);
    expect(properties).toHaveLength(29);
    const dates = Array.from({ length: 36 }, (_, d) => new Date(Date.UTC(2026, 9, 18 + d)).toISOString().slice(0, 10));
    const data = properties
      .flatMap((id) => dates.map((date) => day(id, date)))
      .filter((entry) => entry.date <= '2026-11-22' && entry.date >= '2026-10-19')
      .slice(0, 1000);
    expect(data).toHaveLength(1000);
    expect((await post(key, { data })).json).toEqual({ accepted: 1000 });
    const [row] = await orm.em
      .fork()
      .execute<{ n: string }[]>(
        'select count(*) as n from listing_stat s join channel c on c.id = s.channel_id where c.name = ?',
        [channel],
      );
    expect(Number(row!.n)).toBe(1000);
  });

  test('a property withdrawn from the channel is refused like an unknown one', async () => {
    const { key, ids, refs } = await setup();
    await host.distribute(refs.ro, []);
    expect(pointers(await post(key, { data: [day(ids.ro, '2026-11-20')] }))).toEqual([
      ['/data/0/property_id', 'not_found'],
    ]);
  });
});

describe('GET /internal/v1/properties/{ref}/stats', () => {
  test.each([
    ['to not after from', 'from=2026-11-01&to=2026-11-01', [['to', 'range']]],
    ['more than 366 days', 'from=2025-11-01&to=2026-11-03', [['to', 'max_days']]],
    [
      'dates that are not dates',
      'from=2026-13-01&to=x',
      [
        ['from', 'date_format'],
        ['to', 'date_format'],
      ],
    ],
    [
      'no range',
      '',
      [
        ['from', 'required'],
        ['to', 'required'],
      ],
    ],
  ])('refused: %s', async (_name, query, expected) => {
    const { refs } = await setup();
    const res = await host.call('GET', `/properties/${refs.ro}/stats?${query}`);
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors.map((e: { parameter: string; code: string }) => [e.parameter, e.code])).toEqual(expected);
  });

  test('366 days are read; an unknown property is 404', async () => {
    const { refs } = await setup();
    expect(await stats(refs.ro, 'from=2025-11-01&to=2026-11-02')).toMatchObject({ data: [] });
    expect((await host.call('GET', '/properties/no-such-ref/stats?from=2026-11-01&to=2026-11-02')).status).toBe(404);
  });
});
