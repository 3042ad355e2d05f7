import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';

// Pages of every window shape end at `limit` properties or 5,000 nights, whichever comes first,
// and cost max(1, ceil(nights / 1000)) units: a short window is not paged as if it were a year.

const BASE = '/api/v1/distribution';
const TODAY = '2026-11-22';
const HORIZON_END = '2027-11-22';
const PROPERTIES = 18;
let api: TestApi;
let key: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock(`${TODAY}T10:00:00Z`) });
  const { host } = bed;
  api = bed.api;
  const { channel, key: issued } = await bed.channel({ scopes: ['read:ari'], rateLimit: 10_000 });
  key = issued.key;
  await host.organization('win-org');
  await host.owner('win-own', { organization: 'win-org' });
  await host.location('win-loc', { organization: 'win-org', owner: 'win-own' });
  for (let i = 0; i < PROPERTIES; i += 1) {
    await host.property(`win-p${i}`, { location: 'win-loc', owner: 'win-own' });
    await host.distribute(`win-p${i}`, [channel.name]);
  }
});

interface Page {
  records: number;
  nights: number;
  units: number;
}

/**
 * Follows a query to its last page: each page's size and cost, and every property's nights in
 * order. A one-night read first gives the units left before the first page.
 */
async function pull(query: string): Promise<{ pages: Page[]; nights: Map<string, string[]> }> {
  const probe = await api.call('GET', `${BASE}/availability?from=2026-12-01&to=2026-12-02&limit=1`, { key });
  let remaining = Number(probe.headers['ratelimit-remaining']);
  const pages: Page[] = [];
  const nights = new Map<string, string[]>();
  let cursor: string | null = null;
  do {
    const path = `${BASE}/availability?${query}${query ? '&' : ''}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await api.call('GET', path, { key });
    expect(res.status, res.text).toBe(200);
    expectMatchesDescription('GET', path, res);
    const records = res.json.data as { property_id: string; data: { date: string }[] }[];
    for (const record of records)
      nights.set(record.property_id, [...(nights.get(record.property_id) ?? []), ...record.data.map((n) => n.date)]);
    const now = Number(res.headers['ratelimit-remaining']);
    pages.push({
      records: records.length,
      nights: records.reduce((sum, r) => sum + r.data.length, 0),
      units: remaining - now,
    });
    remaining = now;
    cursor = res.json.next_cursor;
  } while (cursor);
  return { pages, nights };
}

function datesFrom(from: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addDays(from, i));
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const cost = (nights: number) => Math.max(1, Math.ceil(nights / 1000));

/** Pages of properties with `perProperty` nights each: full pages of 5,000 nights (or 100 properties) until the last. */
function expectedPages(perProperty: number): Page[] {
  const pages: Page[] = [];
  let left = PROPERTIES * perProperty;
  let position = 0; // nights of the whole listing served so far
  while (left > 0) {
    const nights = Math.min(5000, left, 100 * perProperty);
    const first = Math.floor(position / perProperty);
    const last = Math.ceil((position + nights) / perProperty) - 1;
    pages.push({ records: last - first + 1, nights, units: cost(nights) });
    position += nights;
    left -= nights;
  }
  return pages;
}

describe('GET /availability page sizes and costs by window', () => {
  test.each([
    ['neither from nor to: 365 nights from today', '', TODAY, 365],
    ['only to: from today', `to=${addDays(TODAY, 300)}`, TODAY, 300],
    ['only to, a month: every property on one page', `to=${addDays(TODAY, 30)}`, TODAY, 30],
    ['only from: up to horizon_end', `from=${addDays(TODAY, 65)}`, addDays(TODAY, 65), 300],
    ["only from, the horizon's last night", `from=${addDays(HORIZON_END, -1)}`, addDays(HORIZON_END, -1), 1],
    ['from and to', `from=${addDays(TODAY, 10)}&to=${addDays(TODAY, 310)}`, addDays(TODAY, 10), 300],
    ['from before today and to: from today', `from=${addDays(TODAY, -65)}&to=${addDays(TODAY, 300)}`, TODAY, 300],
  ])('%s', async (_title, query, first, perProperty) => {
    const { pages, nights } = await pull(query);
    expect(pages).toEqual(expectedPages(perProperty));
    expect(nights.size).toBe(PROPERTIES);
    for (const dates of nights.values()) expect(dates).toEqual(datesFrom(first, perProperty));
  });

  test('to=horizon_end alone, and from today to horizon_end, read the whole horizon', async () => {
    for (const query of [`to=${HORIZON_END}`, `from=${TODAY}&to=${HORIZON_END}`]) {
      const { nights } = await pull(query);
      expect(nights.size).toBe(PROPERTIES);
      for (const dates of nights.values()) expect(dates).toEqual(datesFrom(TODAY, 365));
    }
  });
});
