import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { ChannelSync, MemorySyncStore } from '../../clients/channel-kit/src/index.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import { kitClient } from '../support/channel-kit.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

// With `updated_since`, `GET /availability` lists a property withdrawn from the channel or deleted
// as a tombstone, exactly `{id, status, version, updated_at}`, in the listing's order, at a version
// higher than any its nights were read at: a channel that syncs nights only through that listing
// stops selling them.

const BASE = '/api/v1/distribution';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ api, clock, ctx, host } = await apiTestBed({ clock: new TestClock('2026-11-22T10:00:00Z') }));
});

interface Listed {
  id?: string;
  property_id?: string;
  status?: string;
  version: number;
  updated_at: string;
}

let counter = 0;
/** A channel shown `count` properties; their refs and the channel's ids for them, in that order. */
async function setup(count: number) {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'read:ari'], rateLimit: 10_000 });
  const prefix = `tomb${counter}`;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  const refs: string[] = [];
  for (let i = 0; i < count; i += 1) {
    refs.push(`${prefix}-p${i}`);
    await host.property(refs[i]!, { location: `${prefix}-loc`, owner: `${prefix}-own` });
    await host.distribute(refs[i]!, [channel.name]);
    clock.advance(1_000);
  }
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await api.call('GET', `${BASE}${path}`, { key: key.key, headers });
    expectMatchesDescription('GET', `${BASE}${path}`, res);
    return res;
  };
  /** Every page of a listing, following `next_cursor`. */
  const all = async (query: string): Promise<Listed[]> => {
    const out: Listed[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/availability?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      out.push(...(res.json.data as Listed[]));
      cursor = res.json.next_cursor;
    } while (cursor);
    return out;
  };
  // Listed in the order they were distributed: the refs' order.
  const ids = (await all('')).map((record) => record.property_id!);
  return { channel: channel.name, key: key.key, refs, ids, get, all };
}

const since = (instant: string) => `updated_since=${encodeURIComponent(instant)}`;
const tombstone = (id: string, status: string) => ({
  id,
  status,
  version: expect.any(Number),
  updated_at: expect.any(String),
});

describe('GET /availability?updated_since lists withdrawn and deleted properties as tombstones', () => {
  test('a withdrawal and a deletion come as tombstones, at higher versions, in updated_at order; a full listing has none', async () => {
    const { refs, ids, all } = await setup(3);
    const held = await all('');
    const watermark = held
      .map((record) => record.updated_at)
      .sort()
      .at(-1)!;
    const version = (id: string) => held.find((record) => record.property_id === id)!.version;

    clock.advance(5_000);
    await host.distribute(refs[0]!, []); // withdrawn from the channel
    clock.advance(5_000);
    await host.remove('properties', refs[1]!); // deleted

    const changes = await all(since(watermark));
    const gone = changes.filter((record) => record.id !== undefined);
    expect(gone).toEqual([tombstone(ids[0]!, 'withdrawn'), tombstone(ids[1]!, 'deleted')]);
    // Exactly the four fields of a tombstone.
    for (const record of gone) expect(Object.keys(record).sort()).toEqual(['id', 'status', 'updated_at', 'version']);
    expect(gone[0]!.version).toBeGreaterThan(version(ids[0]!));
    expect(gone[1]!.version).toBeGreaterThan(version(ids[1]!));
    expect(gone.every((record) => record.updated_at >= watermark)).toBe(true);
    const stamps = changes.map((record) => record.updated_at);
    expect(stamps).toEqual([...stamps].sort());

    // Without updated_since only records are listed; by id alone, the property is not found.
    expect((await all('')).map((record) => record.property_id)).toEqual([ids[2]]);
    expect((await all(`property_id=${ids[0]}&${since(watermark)}`)).map((record) => record.id)).toEqual([ids[0]]);
  });

  test('a property that comes back is listed again at a version above its tombstone; a deletion after a withdrawal is higher still', async () => {
    const { channel, refs, ids, all } = await setup(1);
    const [record] = await all('');
    clock.advance(5_000);
    await host.distribute(refs[0]!, []);
    const [withdrawn] = await all(since(record!.updated_at));
    expect(withdrawn).toEqual(tombstone(ids[0]!, 'withdrawn'));

    clock.advance(5_000);
    await host.distribute(refs[0]!, [channel]);
    const [back] = await all(since(withdrawn!.updated_at));
    expect(back!.property_id).toBe(ids[0]);
    expect(back!.version).toBeGreaterThan(withdrawn!.version);

    clock.advance(5_000);
    await host.distribute(refs[0]!, []);
    const [again] = await all(since(back!.updated_at));
    expect(again).toEqual(tombstone(ids[0]!, 'withdrawn'));
    expect(again!.version).toBeGreaterThan(back!.version);
    clock.advance(5_000);
    await host.remove('properties', refs[0]!);
    const [deleted] = await all(since(again!.updated_at));
    expect(deleted).toEqual(tombstone(ids[0]!, 'deleted'));
    expect(deleted!.version).toBeGreaterThan(again!.version);
  });

  test('pages of one entry follow the same order through records and tombstones; a page is answered 304 while unchanged', async () => {
    const { refs, ids, all, get } = await setup(4);
    const start = (await all('')).map((record) => record.updated_at).sort()[0]!;
    clock.advance(5_000);
    await host.distribute(refs[1]!, []);
    clock.advance(5_000);
    await host.call('POST', '/availability', {
      updates: [{ property: refs[2], from: '2026-12-01', to: '2026-12-02', units_available: 0 }],
    });
    clock.advance(5_000);
    await host.remove('properties', refs[3]!);

    const whole = await all(`limit=100&${since(start)}`);
    const paged = await all(`limit=1&${since(start)}`);
    expect(paged).toEqual(whole);
    expect(whole.map((record) => record.id ?? record.property_id)).toEqual([ids[0], ids[1], ids[2], ids[3]]);

    const first = await get(`/availability?${since(start)}`);
    const cached = await get(`/availability?${since(start)}`, { 'if-none-match': first.headers.etag! });
    expect(cached.status).toBe(304);
  });

  test('a channel syncing nights only through the listing drops the nights of a withdrawn and of a deleted property', async () => {
    const { refs, ids, key } = await setup(3);
    const store = new MemorySyncStore();
    const sync = new ChannelSync(kitClient(api, key), { store, lists: [], availability: true });
    await sync.sync();
    for (const id of ids) expect(store.nights(id).size).toBe(365);

    clock.advance(5_000);
    await host.distribute(refs[0]!, []);
    clock.advance(5_000);
    await host.remove('properties', refs[1]!);
    await sync.sync();
    expect(store.nights(ids[0]!).size).toBe(0);
    expect(store.nights(ids[1]!).size).toBe(0);
    expect(store.nights(ids[2]!).size).toBe(365);
  });

  test('a property withdrawn while the listing is read by id is refused as before without updated_since', async () => {
    const { refs, ids, get } = await setup(1);
    await host.distribute(refs[0]!, []);
    expectProblem(await get(`/availability?property_id=${ids[0]}`), 404, 'not_found');
  });
});
