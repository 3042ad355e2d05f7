import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { reproject } from '../../db/catalogue/projector.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_SERVER_SECRET, type TestApi } from '../support/api.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { waitingOnALock } from '../support/database.ts';

// Commit order: a writer that stamped and numbered its change but commits late must never be
// skipped by a reader that already moved past a later one. Writers of one channel queue on the
// channel's log row, so whatever commits later is stamped and numbered later.

const BASE = '/api/v1/distribution';
let api: TestApi;
let orm: MikroORM;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm } = await apiTestBed());
});

const deps = () => ({ clock, secret: new TextEncoder().encode(TEST_SERVER_SECRET) });

const setup = (refs: string[]) => channelShown(ctx, host, refs, { scopes: ['read:catalog'] });

/** Changes a property's unit count and re-projects it, inside the caller's transaction. */
async function changeUnits(tx: EntityManager, ref: string, units: number): Promise<void> {
  const [row] = await tx.execute<{ id: string }[]>(
    `update property set content = jsonb_set(content, '{units}', ?::jsonb) where ref = ? returning id`,
    [String(units), ref],
  );
  await reproject(tx, { properties: [row!.id] }, deps());
}

/** A reader that follows the event log and the property list exactly as a channel would. */
function reader(key: string) {
  let cursor: string | undefined;
  let since: string | undefined;
  const events: { id: string; data: { id: string; version: number } }[] = [];
  const versions = new Map<string, number>();
  return {
    events,
    versions,
    async poll(): Promise<void> {
      for (;;) {
        const res = await api.call(
          'GET',
          `${BASE}/events?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key },
        );
        expect(res.status).toBe(200);
        events.push(...res.json.data);
        cursor = res.json.next_cursor;
        if (!res.json.has_more) break;
      }
      let page: string | null = null;
      let largest = since;
      do {
        const query: string = `limit=50${since ? `&updated_since=${since}` : ''}${page ? `&cursor=${encodeURIComponent(page)}` : ''}`;
        const res = await api.call('GET', `${BASE}/properties?${query}`, { key });
        expect(res.status).toBe(200);
        for (const item of res.json.data as { id: string; version: number; updated_at: string }[]) {
          if ((versions.get(item.id) ?? 0) < item.version) versions.set(item.id, item.version);
          if (!largest || item.updated_at > largest) largest = item.updated_at;
        }
        page = res.json.next_cursor;
      } while (page);
      since = largest;
    },
  };
}

async function committed(key: string) {
  const events = (await api.call('GET', `${BASE}/events?limit=500`, { key })).json.data as { id: string }[];
  const properties = (await api.call('GET', `${BASE}/properties?limit=500`, { key })).json.data as {
    id: string;
    version: number;
  }[];
  return { events, versions: new Map(properties.map((p) => [p.id, p.version])) };
}

test('a writer that commits late is still read after one that committed early, in the same second', async () => {
  const { key, ref } = await setup(['p1', 'p2']);
  const follower = reader(key);
  await follower.poll();
  const seen = follower.events.length;

  const gate = Promise.withResolvers<void>();
  const firstLocked = Promise.withResolvers<void>();
  const first = orm.em.fork().transactional(async (tx) => {
    await changeUnits(tx, ref('p1'), 2);
    firstLocked.resolve();
    await gate.promise; // stamped and numbered, not committed
  });
  await firstLocked.promise;
  // The second writer queues on the channel's lock instead of taking a later number first.
  const second = orm.em.fork().transactional((tx) => changeUnits(tx, ref('p2'), 3));
  await waitingOnALock(orm);
  await follower.poll();
  expect(follower.events).toHaveLength(seen);

  gate.resolve();
  await Promise.all([first, second]);
  await follower.poll();
  const truth = await committed(key);
  expect(follower.events.map((e) => e.id)).toEqual(truth.events.map((e) => e.id));
  expect(follower.versions).toEqual(truth.versions);
  const [p1, p2] = follower.events.slice(seen);
  expect(p2!.data.version).toBeGreaterThan(p1!.data.version);
});

test('many concurrent writers committing out of order: a polling reader misses nothing', async () => {
  const { key, ref } = await setup(['a', 'b', 'c', 'd']);
  const follower = reader(key);
  let writing = true;
  const polling = (async () => {
    while (writing) await follower.poll();
  })();

  const writers = Array.from({ length: 40 }, (_, i) =>
    orm.em.fork().transactional(async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, (i * 7) % 13));
      await changeUnits(tx, ref(['a', 'b', 'c', 'd'][i % 4]!), 2 + (i % 5));
      // Hold the lock a varying while, so commits land in another order than the writers started.
      await new Promise((resolve) => setTimeout(resolve, (i * 11) % 17));
      if (i % 10 === 0) clock.advance(1000);
    }),
  );
  await Promise.all(writers);
  writing = false;
  await polling;
  await follower.poll();

  const truth = await committed(key);
  expect(follower.events.map((e) => e.id)).toEqual(truth.events.map((e) => e.id));
  expect(follower.versions).toEqual(truth.versions);
  const positions = follower.events.map((e) => e.data.version);
  expect([...positions].sort((x, y) => x - y)).toEqual(positions);
});

test('a change committed in the second of the record a list reader just read, to a property listed before it, is read on the same pass', async () => {
  const names = ['t1', 't2', 't3', 't4'];
  const { key, ref } = await setup(names);
  // Ties within a stamp go by the channel's id: `low` is listed before `high` in the same second.
  const [low, middle, high, last] = (
    await orm.em.fork().execute<{ ref: string }[]>(
      `select p.ref from channel_resource cr join property p on p.id = cr.internal_id
        where cr.kind = 'property' and p.ref = any(?::text[]) order by cr.external_id`,
      [`{${names.map(ref).join(',')}}`],
    )
  ).map((row) => row.ref);
  clock.advance(1000);
  let since = clock.now().toISOString();
  await orm.em.fork().transactional((tx) => changeUnits(tx, high!, 2));
  await orm.em.fork().transactional((tx) => changeUnits(tx, last!, 2));

  const versions = new Map<string, number>();
  const served: string[] = [];
  let changed = false;
  /** One pass of the list one property per page, resuming from the largest `updated_at` received. */
  const pass = async (between: () => Promise<void>) => {
    let cursor: string | null = null;
    let largest = since;
    do {
      const query: string = `limit=1&updated_since=${since}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await api.call('GET', `${BASE}/properties?${query}`, { key });
      expect(res.status, res.text).toBe(200);
      for (const item of res.json.data as { id: string; version: number; updated_at: string }[]) {
        if ((versions.get(item.id) ?? 0) < item.version) versions.set(item.id, item.version);
        served.push(item.updated_at);
        if (item.updated_at > largest) largest = item.updated_at;
      }
      cursor = res.json.next_cursor;
      await between();
    } while (cursor);
    since = largest;
  };
  await pass(async () => {
    if (changed) return;
    changed = true;
    // Committed after the reader passed `high`, in the same second; then a change a second later
    // ends the pass, and the next pass resumes from that later second.
    await orm.em.fork().transactional((tx) => changeUnits(tx, low!, 2));
    clock.advance(1000);
    await orm.em.fork().transactional((tx) => changeUnits(tx, middle!, 2));
  });
  await pass(async () => {});
  expect(versions).toEqual((await committed(key)).versions);
  expect(versions.size).toBe(4);
  // Stamps a millisecond apart are served as the contract writes instants: whole seconds.
  for (const instant of served) expect(instant).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});
