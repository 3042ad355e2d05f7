import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { addToWindow } from '../../db/counters.ts';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { NONREF_PLAN, sampleProperty, type Platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
const TODAY = '2026-11-22';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm } = await apiTestBed({ clock: new TestClock(`${TODAY}T10:00:00Z`) }));
});

const get = async (key: string, path: string) => {
  const res = await api.call('GET', `${BASE}${path}`, { key });
  expectMatchesDescription('GET', `${BASE}${path}`, res);
  return res;
};

let counter = 0;
/** A channel seeing `count` properties with two rate plans each (`flex` and `nonref`). */
async function setup(count = 1, options: { rateLimit?: number } = {}) {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, {
    scopes: ['read:catalog', 'read:ari'],
    rateLimit: options.rateLimit ?? 600,
  });
  const prefix = `ari${counter}`;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  const refs: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const ref = `${prefix}-p${i}`;
    const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
    await host.property(ref, {
      location: `${prefix}-loc`,
      owner: `${prefix}-own`,
      rate_plans: [...(base.rate_plans as any[]), NONREF_PLAN],
    });
    await host.distribute(ref, [channel.name]);
    refs.push(ref);
  }
  return { key: key.key, channel: channel.name, channelId: channel.id, refs };
}

const updates = (body: unknown) => host.call('POST', '/availability', body);

describe('GET /availability', () => {
  test('every night from today is present; a plan without a price that night is closed', async () => {
    const { key } = await setup();
    const res = await get(key, '/availability');
    expect(res.status).toBe(200);
    const [record] = res.json.data;
    // Exactly 365 nights: the whole horizon is one window.
    expect(record).toMatchObject({ currency: 'RON', from: TODAY, horizon_end: '2027-11-22', to: '2027-11-22' });
    expect(record.property_id).toMatch(ID_PATTERNS.property);
    expect(record.data).toHaveLength(365);
    expect(record.data[0]).toMatchObject({ date: TODAY, units_available: 1, closed_to_arrival: false, min_stay: 1 });
    expect(record.data.map((n: { date: string }) => n.date)).toEqual([
      ...new Set(record.data.map((n: { date: string }) => n.date)),
    ]);
    for (const rate of record.data[0].rates) {
      expect(rate.rate_plan_id).toMatch(ID_PATTERNS.rate_plan);
      // A closed plan without a price that night has no price fields; its own minimum stay is 1.
      expect(rate).toEqual({
        rate_plan_id: rate.rate_plan_id,
        closed: true,
        prices_by_occupancy: [],
        child_prices: [],
        min_stay: 1,
        closed_to_arrival: false,
      });
    }
    // No maximum stay is 365, the longest stay one query window covers.
    expect(record.data[0].max_stay).toBe(365);
    expect(nullsIn(record)).toEqual([]);
    // The horizon's last nights, to horizon_end.
    const tail = await get(key, '/availability?from=2027-11-19&to=2027-11-22');
    expect(tail.json.data[0].data.map((n: { date: string }) => n.date)).toEqual([
      '2027-11-19',
      '2027-11-20',
      '2027-11-21',
    ]);
    // Rate plan ids are the ones the property record shows.
    const property = (await get(key, `/properties/${record.property_id}`)).json;
    expect(record.data[0].rates.map((r: { rate_plan_id: string }) => r.rate_plan_id)).toEqual(
      property.rate_plans.map((p: { id: string }) => p.id),
    );
  });

  test('platform updates set nights and prices, derive the summary, bump the version and announce the changed range', async () => {
    const { key, refs } = await setup();
    const first = await get(key, '/availability');
    const before = first.json.data[0];
    const cached = await api.call('GET', `${BASE}/availability`, {
      key,
      headers: { 'if-none-match': first.headers.etag! },
    });
    expect(cached.status).toBe(304);
    const res = await updates({
      updates: [
        {
          property: refs[0],
          from: '2026-12-20',
          to: '2026-12-27',
          units_available: 1,
          min_stay: 2,
          rates: [
            {
              rate_plan: 'flex',
              prices_by_occupancy: [
                { adults: 1, amount: 30000 },
                { adults: 2, amount: 30000 },
                { adults: 3, amount: 36000 },
                { adults: 4, amount: 42000 },
              ],
              child_price: 5000,
              infant_price: 0,
            },
            {
              rate_plan: 'nonref',
              prices_by_occupancy: [
                { adults: 1, amount: 27000 },
                { adults: 2, amount: 27000 },
                { adults: 3, amount: 33000 },
                { adults: 4, amount: 39000 },
              ],
              child_prices: [
                { age_from: 0, age_to: 5, amount: 0 },
                { age_from: 6, age_to: 12, amount: 4000 },
              ],
              closed_to_arrival: true,
            },
          ],
        },
        { property: refs[0], from: '2026-12-24', to: '2026-12-26', closed_to_departure: true },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results).toEqual([
      { property: refs[0], changed_nights: 7, ranges: [{ from: '2026-12-20', to: '2026-12-27' }] },
    ]);

    // A change moves the page's validator.
    expect(
      (await api.call('GET', `${BASE}/availability`, { key, headers: { 'if-none-match': first.headers.etag! } }))
        .status,
    ).toBe(200);
    const after = (await get(key, '/availability?from=2026-12-19&to=2026-12-28')).json.data[0];
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.data).toHaveLength(9);
    const night = after.data.find((n: { date: string }) => n.date === '2026-12-24');
    expect(night).toMatchObject({ units_available: 1, min_stay: 2, closed_to_departure: true });
    expect(night.rates[0]).toMatchObject({
      closed: false,
      price: { amount: 30000, currency: 'RON' },
      base_occupancy: 2,
      extra_guest_price: { amount: 6000, currency: 'RON' },
      child_price: { amount: 5000, currency: 'RON' },
      infant_price: { amount: 0, currency: 'RON' },
    });
    expect(night.rates[1]).toMatchObject({
      closed: false,
      closed_to_arrival: true,
      child_prices: [
        { age_from: 0, age_to: 5, price: { amount: 0, currency: 'RON' } },
        { age_from: 6, age_to: 12, price: { amount: 4000, currency: 'RON' } },
      ],
    });
    // A priced plan that sets no child or infant price has none; nothing in the page is null.
    expect(Object.keys(night.rates[1])).not.toContain('child_price');
    expect(Object.keys(night.rates[1])).not.toContain('infant_price');
    expect(nullsIn(after)).toEqual([]);
    expect(after.data[0].rates[0].closed).toBe(true);

    const events = (await get(key, '/events?limit=500')).json.data.filter(
      (e: { type: string }) => e.type === 'availability.updated',
    );
    expect(events.at(-1)).toMatchObject({
      data: { object: 'property', id: after.property_id, from: '2026-12-20', to: '2026-12-27' },
    });
    expect(events.at(-1).data).not.toHaveProperty('version');

    // The same update again changes nothing and announces nothing.
    const again = await updates({
      updates: [{ property: refs[0], from: '2026-12-24', to: '2026-12-26', closed_to_departure: true }],
    });
    expect(again.json.results[0]).toMatchObject({ changed_nights: 0, ranges: [] });
    expect(
      (await get(key, '/events?limit=500')).json.data.filter(
        (e: { type: string }) => e.type === 'availability.updated',
      ),
    ).toHaveLength(events.length);
  });

  test('a bad update is refused whole and writes nothing', async () => {
    const { key, refs } = await setup();
    const before = (await get(key, '/availability?from=2026-12-01&to=2026-12-02')).json.data[0];
    const res = await updates({
      updates: [
        { property: refs[0], from: '2026-12-01', to: '2026-12-02', units_available: 3 },
        { property: refs[0], from: '2026-12-01', to: '2026-12-02', rates: [{ rate_plan: 'nope', closed: true }] },
        { property: 'no-such-property', from: '2026-12-01', to: '2026-12-02', units_available: 1 },
        { property: refs[0], from: '2026-12-05', to: '2026-12-01', units_available: 1 },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect((await get(key, '/availability?from=2026-12-01&to=2026-12-02')).json.data[0]).toEqual(before);
  });

  test('query window: at most 365 nights, never beyond horizon_end, to after from', async () => {
    const { key } = await setup();
    const long = await get(key, '/availability?from=2026-11-22&to=2027-11-23');
    expectProblem(long, 400, 'invalid_parameters', ['errors']);
    expect(long.json.errors).toEqual([expect.objectContaining({ parameter: 'to', code: 'max_nights' })]);
    // With a rule the query's schema refuses, in the same answer.
    const both = await get(key, '/availability?from=2026-11-22&to=2027-11-23&limit=1000');
    expectProblem(both, 400, 'invalid_parameters', ['errors']);
    expect(
      both.json.errors.map((error: { parameter: string; code: string }) => `${error.parameter}:${error.code}`),
    ).toEqual(expect.arrayContaining(['limit:max', 'to:max_nights']));
    const beyond = await get(key, '/availability?from=2027-01-01&to=2027-12-01');
    expectProblem(beyond, 400, 'window_beyond_horizon', ['horizon_end']);
    expect(beyond.json.horizon_end).toBe('2027-11-22');
    expectProblem(await get(key, '/availability?from=2027-11-20&to=2027-11-23'), 400, 'window_beyond_horizon', [
      'horizon_end',
    ]);
    expectProblem(await get(key, '/availability?from=2027-12-01&to=2027-12-05'), 400, 'window_beyond_horizon', [
      'horizon_end',
    ]);
    expectProblem(await get(key, '/availability?from=2026-12-05&to=2026-12-01'), 400, 'invalid_parameters', ['errors']);
    expectProblem(await get(key, '/availability?from=5.12.2026'), 400, 'invalid_parameters', ['errors']);
    // Past nights are not kept: the window starts at the property's today.
    expect(
      (await get(key, '/availability?from=2026-11-01&to=2026-11-25')).json.data[0].data.map(
        (n: { date: string }) => n.date,
      ),
    ).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
  });

  test('a page ends at 5,000 nights, in the middle of a property, which continues on the next page; it costs ceil(nights/1000) units', async () => {
    const { key } = await setup(14, { rateLimit: 10_000 });
    const first = await get(key, '/availability?limit=100');
    const nights = first.json.data.reduce((sum: number, r: { data: unknown[] }) => sum + r.data.length, 0);
    expect(nights).toBe(5000);
    expect(first.json.data).toHaveLength(14);
    const split = first.json.data[13];
    expect(split.data).toHaveLength(5000 - 13 * 365);
    expect(split.to).toBe(split.data.at(-1).date > '' ? addDay(split.data.at(-1).date) : '');
    // The key's first request: 5,000 nights cost exactly 5 units.
    expect(Number(first.headers['ratelimit-limit']) - Number(first.headers['ratelimit-remaining'])).toBe(5);

    const second = await get(key, `/availability?limit=100&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(second.json.data[0].property_id).toBe(split.property_id);
    expect(second.json.data[0].from).toBe(split.to);
    expect(second.json.data[0].data).toHaveLength(365 - split.data.length);
    expect(second.json.next_cursor).toBeNull();
    // The rest, 14 x 365 - 5,000 = 110 nights, costs 1 unit.
    expect(Number(first.headers['ratelimit-remaining']) - Number(second.headers['ratelimit-remaining'])).toBe(1);
    // The cursor is bound to its query (not to `limit`, which may change between pages).
    expectProblem(
      await get(key, `/availability?to=2027-01-01&cursor=${encodeURIComponent(first.json.next_cursor)}`),
      400,
      'invalid_cursor',
    );
  });

  test('a page costs max(1, ceil(nights / 1000)) units: 0, 1, 1,000 nights cost 1; 1,001 cost 2; 4,900 cost 5', async () => {
    const { key } = await setup(14, { rateLimit: 10_000 });
    let remaining = 10_000;
    const cost = async (path: string, nights: number) => {
      const res = await get(key, path);
      expect(res.status, res.text).toBe(200);
      expect(
        res.json.data.reduce((sum: number, r: { data: unknown[] }) => sum + r.data.length, 0),
        path,
      ).toBe(nights);
      const now = Number(res.headers['ratelimit-remaining']);
      const units = remaining - now;
      remaining = now;
      return units;
    };
    const later = new Date(clock.now().getTime() + 3_600_000).toISOString();
    expect(await cost(`/availability?updated_since=${encodeURIComponent(later)}`, 0)).toBe(1);
    expect(await cost('/availability?limit=1&from=2026-12-01&to=2026-12-02', 1)).toBe(1);
    expect(await cost(`/availability?limit=10&from=2026-12-01&to=${addDays('2026-12-01', 100)}`, 1000)).toBe(1);
    expect(await cost(`/availability?limit=7&from=2026-12-01&to=${addDays('2026-12-01', 143)}`, 1001)).toBe(2);
    expect(await cost(`/availability?limit=14&from=2026-12-01&to=${addDays('2026-12-01', 350)}`, 4900)).toBe(5);
  });

  test('with 9 units left a 5,000-night page (5 units) is served; with 4 left the same page is refused with 429', async () => {
    const { key, channelId } = await setup(14);
    // The channel (600 a minute) has used 591 units this minute: 9 remain.
    await addToWindow(orm.em.fork(), `channel:${channelId}`, 591, clock.now());
    const served = await get(key, '/availability?limit=100');
    expect(served.status, served.text).toBe(200);
    expect(served.json.data.reduce((sum: number, r: { data: unknown[] }) => sum + r.data.length, 0)).toBe(5000);
    expect(served.headers['ratelimit-remaining']).toBe('4');
    // The same page again: its first unit fits, its 5,000 nights do not.
    const refused = await get(key, '/availability?limit=100');
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
  });

  test('a page with a next page links it (Link rel="next"): the same query with the body\'s cursor; the last page links nothing', async () => {
    const { key } = await setup(3);
    const query = '/availability?limit=2&from=2026-12-01&to=2026-12-08';
    const first = await get(key, query);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers['link'] ?? '');
    expect(link, first.headers['link']).not.toBeNull();
    const next = new URL(link![1]!, 'https://example.test');
    expect(next.pathname).toBe(`${BASE}/availability`);
    expect(Object.fromEntries(next.searchParams)).toEqual({
      limit: '2',
      from: '2026-12-01',
      to: '2026-12-08',
      cursor: first.json.next_cursor,
    });
    const followed = await api.call('GET', `${next.pathname}${next.search}`, { key });
    const byCursor = await get(key, `${query}&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(followed.status).toBe(200);
    expect(followed.json).toEqual(byCursor.json);
    expect(followed.json.data).toHaveLength(1);
    expect(followed.json.next_cursor).toBeNull();
    expect(followed.headers['link']).toBeUndefined();
  });

  test('limit pages by properties; property_id reads one; a withdrawn or unknown property is not_found', async () => {
    const { key, refs, channel } = await setup(3);
    const page = await get(key, '/availability?limit=2');
    expect(page.json.data).toHaveLength(2);
    const rest = await get(key, `/availability?limit=2&cursor=${encodeURIComponent(page.json.next_cursor)}`);
    expect(rest.json.data).toHaveLength(1);
    expect(rest.json.next_cursor).toBeNull();
    const one = page.json.data[0].property_id;
    expect(
      (await get(key, `/availability?property_id=${one}`)).json.data.map((r: { property_id: string }) => r.property_id),
    ).toEqual([one]);
    expectProblem(await get(key, '/availability?property_id=prp_0aaaaaaaaaaaaaaaaaaaaaaaaa'), 404, 'not_found');
    const all = [...page.json.data, ...rest.json.data].map((r: { property_id: string }) => r.property_id);
    await host.distribute(refs[0]!, []);
    const remaining = (await get(key, '/availability')).json.data.map((r: { property_id: string }) => r.property_id);
    expect(remaining).toHaveLength(2);
    const withdrawn = all.find((id) => !remaining.includes(id))!;
    expectProblem(await get(key, `/availability?property_id=${withdrawn}`), 404, 'not_found');
    void channel;
  });

  test('updated_since lists only properties whose availability changed; older than 35 days is 410; scope read:ari', async () => {
    const { key, refs } = await setup(2);
    clock.advance(5_000);
    const since = new Date(clock.now().getTime()).toISOString();
    await updates({ updates: [{ property: refs[1], from: '2027-01-10', to: '2027-01-12', units_available: 0 }] });
    const changed = (await get(key, `/availability?updated_since=${since}&from=2027-01-10&to=2027-01-12`)).json.data;
    expect(changed).toHaveLength(1);
    expect(changed[0].data.map((n: { units_available: number }) => n.units_available)).toEqual([0, 0]);
    expectProblem(
      await get(key, `/availability?updated_since=${new Date(clock.now().getTime() - 36 * 86_400_000).toISOString()}`),
      410,
      'sync_window_expired',
    );
    const catalogOnly = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    expectProblem(await get(catalogOnly.key.key, '/availability'), 403, 'insufficient_scope', ['required_scopes']);
  });

  test('a property newly distributed, coming back or publishable again appears under updated_since and is announced for its horizon', async () => {
    const { refs, channel: first } = await setup();
    const second = await channelWithKey(ctx, { scopes: ['read:catalog', 'read:ari'] });
    const key = second.key.key;
    const seen = async (since: string) =>
      (await get(key, `/availability?updated_since=${since}`)).json.data.map(
        (r: { property_id: string }) => r.property_id,
      );
    const announced = async () =>
      ((await get(key, '/events?limit=500')).json.data as { type: string; data: Record<string, unknown> }[])
        .filter((e) => e.type === 'availability.updated')
        .map((e) => e.data);

    clock.advance(5_000);
    const since = clock.now().toISOString();
    await host.distribute(refs[0]!, [first, second.channel.name]);
    const [propertyId] = (await get(key, '/properties')).json.data.map((p: { id: string }) => p.id);
    expect(await seen(since)).toEqual([propertyId]);
    expect(await announced()).toEqual([{ object: 'property', id: propertyId, from: TODAY, to: '2027-11-22' }]);

    clock.advance(5_000);
    await host.distribute(refs[0]!, [first]);
    clock.advance(5_000);
    const back = clock.now().toISOString();
    await host.distribute(refs[0]!, [first, second.channel.name]);
    expect(await seen(back)).toEqual([propertyId]);
    expect(await announced()).toHaveLength(2);

    // Unpublishable (its classification expired), then publishable again.
    const place = { location: refs[0]!.replace(/-p0$/, '-loc'), owner: refs[0]!.replace(/-p0$/, '-own') };
    clock.advance(5_000);
    await host.property(refs[0]!, {
      ...place,
      legal: {
        classification: {
          certificate_number: 'X',
          category: 'apartament',
          rating_kind: 'stars',
          rating: 2,
          valid_until: '2026-01-01',
          country: 'RO',
        },
        registration_number: null,
        identifiers: [],
      },
    });
    expect((await get(key, `/properties/${propertyId}`)).json.status).toBe('withdrawn');
    clock.advance(5_000);
    const publishable = clock.now().toISOString();
    await host.property(refs[0]!, place);
    expect((await get(key, `/properties/${propertyId}`)).json.status).toBe('active');
    expect(await seen(publishable)).toEqual([propertyId]);
    expect((await announced()).at(-1)).toEqual({ object: 'property', id: propertyId, from: TODAY, to: '2027-11-22' });
  });

  // Moves the clock days ahead: keep it last.
  test("horizon_end stays 365 nights past the property's today after local midnight, before the roll and when the roll is days late", async () => {
    const { key } = await setup();
    const nights = (record: { data: { date: string }[] }) => record.data.map((n) => n.date);
    // 00:00:30 in Bucharest: the property's today moved, no roll has run (no worker here).
    clock.set('2026-11-22T22:00:30Z');
    const justAfter = await get(key, '/availability?from=2026-11-23&to=2027-11-23');
    expect(justAfter.status, justAfter.text).toBe(200);
    const [record] = justAfter.json.data;
    expect(record.horizon_end >= '2027-11-23').toBe(true);
    expect(nights(record)).toEqual([...datesFrom('2026-11-23', 365)]);

    // Three days on and still no roll: every night from today up to today + 365 is served.
    clock.set('2026-11-25T22:00:30Z');
    const late = await get(key, '/availability?from=2026-11-26&to=2027-11-26');
    expect(late.status, late.text).toBe(200);
    expect(late.json.data[0].horizon_end >= '2027-11-26').toBe(true);
    expect(nights(late.json.data[0])).toEqual([...datesFrom('2026-11-26', 365)]);
  });
});

/** The JSON pointers of every null in a value. */
function nullsIn(value: unknown, pointer = ''): string[] {
  if (value === null) return [pointer];
  if (typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
    nullsIn(inner, `${pointer}/${key}`),
  );
}

function* datesFrom(from: string, count: number): Generator<string> {
  for (let i = 0; i < count; i += 1) yield addDays(from, i);
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function addDay(date: string): string {
  return addDays(date, 1);
}
