import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { applyAvailabilityUpdates, lockPropertiesByRef } from '../../db/availability.ts';
import { withChannelLog } from '../../db/catalogue/channel-log.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { waitingOnALock } from '../support/database.ts';
import { channelWithKey } from '../support/fixtures.ts';

// `GET /availability?updated_since` in commit order: a channel that pages through the changed
// properties and then resumes from the largest `updated_at` it received never misses a change,
// whether the change landed behind its position while it paged or committed late.

const BASE = '/api/v1/distribution';
/** Two nights every writer changes; the pages read only them, which keeps them small. */
const WINDOW = 'from=2027-01-10&to=2027-01-12';
let api: TestApi;
let orm: MikroORM;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm } = await apiTestBed());
});

const setup = (refs: string[]) =>
  channelShown(ctx, host, refs, { scopes: ['read:catalog', 'read:ari'], rateLimit: 100_000 });

/** Sets a property's units on the two nights, inside the caller's transaction. */
async function changeUnits(tx: EntityManager, ref: string, units: number): Promise<void> {
  const [row] = await lockPropertiesByRef(tx, [ref]);
  await applyAvailabilityUpdates(
    tx,
    { propertyId: row!.id, ref, content: row!.content, timezone: row!.timezone },
    [{ property: ref, from: '2027-01-10', to: '2027-01-12', units_available: units }],
    clock,
  );
}

/** The platform's reference of a property the channel knows by `externalId`. */
async function refOf(externalId: string): Promise<string> {
  const [row] = await orm.em
    .fork()
    .execute<{ ref: string }[]>(
      'select p.ref from channel_resource cr join property p on p.id = cr.internal_id where cr.external_id = ?',
      [externalId],
    );
  return row!.ref;
}

interface Record {
  property_id: string;
  version: number;
  updated_at: string;
}

/**
 * A channel following availability as the contract tells it to: pages of `limit` records under
 * `updated_since`, then the next pass from the largest `updated_at` received. `between` runs after
 * each page, so a test can change what the reader has not finished reading.
 */
function reader(key: string, since: string) {
  const versions = new Map<string, number>();
  /** Every `updated_at` received. */
  const served: string[] = [];
  return {
    versions,
    served,
    async poll(limit: number, between: (page: Record[]) => Promise<void> = async () => {}): Promise<void> {
      let cursor: string | null = null;
      let largest = since;
      do {
        const res = await api.call(
          'GET',
          `${BASE}/availability?${WINDOW}&limit=${limit}&updated_since=${since}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key },
        );
        expect(res.status, res.text).toBe(200);
        const page = res.json.data as Record[];
        for (const record of page) {
          if ((versions.get(record.property_id) ?? 0) < record.version)
            versions.set(record.property_id, record.version);
          served.push(record.updated_at);
          if (record.updated_at > largest) largest = record.updated_at;
        }
        cursor = res.json.next_cursor;
        await between(page);
      } while (cursor);
      since = largest;
    },
  };
}

async function committedVersions(key: string): Promise<Map<string, number>> {
  const res = await api.call('GET', `${BASE}/availability?${WINDOW}&limit=500`, { key });
  return new Map((res.json.data as Record[]).map((record) => [record.property_id, record.version]));
}

test('a property changed behind a paging reader, then one ahead of it, later: the next pass from the largest updated_at reads both', async () => {
  const { key } = await setup(['a', 'b', 'c', 'd']);
  clock.advance(1000);
  const follower = reader(key, new Date(clock.now().getTime() - 60_000).toISOString());
  let read = new Set<string>();
  let changed = false;
  await follower.poll(1, async (page) => {
    read = new Set([...read, ...page.map((r) => r.property_id)]);
    if (changed) return;
    changed = true;
    // The property just read changes, then one the reader has not reached, a second later.
    const behind = page[0]!.property_id;
    await orm.em.fork().transactional(async (tx) => changeUnits(tx, await refOf(behind), 0));
    clock.advance(1000);
    const ahead = [...(await committedVersions(key)).keys()].find((id) => !read.has(id))!;
    await orm.em.fork().transactional(async (tx) => changeUnits(tx, await refOf(ahead), 0));
  });
  await follower.poll(1);
  expect(follower.versions).toEqual(await committedVersions(key));
});

test('a writer that commits late is read on the next pass after one that committed early, in the same second', async () => {
  const { key, ref } = await setup(['p1', 'p2']);
  clock.advance(1000);
  const follower = reader(key, clock.now().toISOString());
  await follower.poll(1);
  expect(follower.versions.size).toBe(0);

  const gate = Promise.withResolvers<void>();
  const firstLocked = Promise.withResolvers<void>();
  const first = orm.em.fork().transactional(async (tx) => {
    await changeUnits(tx, ref('p1'), 0);
    firstLocked.resolve();
    await gate.promise; // stamped, not committed
  });
  await firstLocked.promise;
  // The second writer queues on the channel's lock instead of taking an earlier stamp first.
  const second = orm.em.fork().transactional((tx) => changeUnits(tx, ref('p2'), 0));
  await waitingOnALock(orm);
  await follower.poll(1);
  expect(follower.versions.size).toBe(0);

  gate.resolve();
  await Promise.all([first, second]);
  await follower.poll(1);
  expect(follower.versions).toEqual(await committedVersions(key));
  expect(follower.versions.size).toBe(2);
});

test('a change committed in the second of the record a reader just read, to a property ordered before it, is read on the same pass', async () => {
  const names = ['t1', 't2', 't3', 't4'];
  const { key, ref } = await setup(names);
  // Ties within a stamp go by internal id: `low` sorts before `high` in the same second.
  const [low, middle, high, last] = (
    await orm.em
      .fork()
      .execute<{ ref: string }[]>('select ref from property where ref = any(?::text[]) order by id', [
        `{${names.map(ref).join(',')}}`,
      ])
  ).map((row) => row.ref);
  clock.advance(1000);
  const follower = reader(key, clock.now().toISOString());
  await orm.em.fork().transactional((tx) => changeUnits(tx, high!, 0));
  await orm.em.fork().transactional((tx) => changeUnits(tx, last!, 0));
  let changed = false;
  await follower.poll(1, async () => {
    if (changed) return;
    changed = true;
    // Committed after the reader passed `high`, in the same second; then a change a second later
    // ends the pass, and the next pass resumes from that later second.
    await orm.em.fork().transactional((tx) => changeUnits(tx, low!, 0));
    clock.advance(1000);
    await orm.em.fork().transactional((tx) => changeUnits(tx, middle!, 0));
  });
  await follower.poll(1);
  expect(follower.versions).toEqual(await committedVersions(key));
  expect(follower.versions.size).toBe(4);
  // Stamps a millisecond apart are served as the contract writes instants: whole seconds.
  for (const instant of follower.served) expect(instant).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});

test('a property another channel starts to see, stamped ahead of this channel: a later change of this channel is never stamped behind a reader standing on it', async () => {
  const { key, ref } = await setup(['x1', 'x2', 'y', 'z']);
  const seer = ref('x1').slice(0, -'-x1'.length);
  const { channel: other } = await channelWithKey(ctx, { scopes: ['read:ari'] });
  clock.advance(1000);
  const follower = reader(key, clock.now().toISOString());
  // The other channel's writers run its stamps a few milliseconds ahead within this second.
  for (let i = 0; i < 5; i += 1)
    await orm.em.fork().transactional((tx) => withChannelLog(tx, other.id, clock.now(), async () => {}));
  // It starts to see x1 and x2: their availability is stamped past its last stamp.
  await host.distribute(ref('x1'), [seer, other.name]);
  await host.distribute(ref('x2'), [seer, other.name]);
  let changed = false;
  await follower.poll(1, async () => {
    if (changed) return;
    changed = true;
    // The reader stands on x1. This channel's next change commits after it, then one a second later.
    await orm.em.fork().transactional((tx) => changeUnits(tx, ref('y'), 0));
    clock.advance(1000);
    await orm.em.fork().transactional((tx) => changeUnits(tx, ref('z'), 0));
  });
  await follower.poll(1);
  expect(follower.versions).toEqual(await committedVersions(key));
  expect(follower.versions.size).toBe(4);
});

test('many concurrent writers committing out of order: a reader paging one property at a time misses nothing', async () => {
  const names = ['a', 'b', 'c', 'd', 'e'];
  const { key, ref } = await setup(names);
  const follower = reader(key, clock.now().toISOString());
  let writing = true;
  const polling = (async () => {
    while (writing) await follower.poll(1);
  })();

  const writers = Array.from({ length: 40 }, (_, i) =>
    orm.em.fork().transactional(async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, (i * 7) % 13));
      await changeUnits(tx, ref(names[(i * 3) % names.length]!), i % 2);
      // Hold the lock a varying while, so commits land in another order than the writers started.
      await new Promise((resolve) => setTimeout(resolve, (i * 11) % 17));
      if (i % 8 === 0) clock.advance(1000);
    }),
  );
  await Promise.all(writers);
  writing = false;
  await polling;
  await follower.poll(1);

  const truth = await committedVersions(key);
  expect(truth.size).toBe(names.length);
  expect(follower.versions).toEqual(truth);
});

test('under updated_since a property cut at 5,000 nights continues on the next page, or is listed whole again when it changed in between', async () => {
  const { key } = await setup(Array.from({ length: 14 }, (_, i) => `cut${i}`));
  const since = new Date(clock.now().getTime() - 60_000).toISOString();
  const page = async (cursor?: string) => {
    const res = await api.call(
      'GET',
      `${BASE}/availability?updated_since=${since}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    expect(res.status, res.text).toBe(200);
    return res.json as { data: (Record & { from: string; to: string; data: unknown[] })[]; next_cursor: string | null };
  };
  const first = await page();
  expect(first.data).toHaveLength(14);
  const cut = first.data[13]!;
  expect(cut.data).toHaveLength(5000 - 13 * 365);
  const rest = await page(first.next_cursor!);
  expect(rest.data[0]).toMatchObject({ property_id: cut.property_id, version: cut.version, from: cut.to });
  expect(rest.data[0]!.data).toHaveLength(365 - cut.data.length);

  // A night the reader already has changes before it reads the rest: the property comes again from its first night.
  const again = await page();
  await orm.em.fork().transactional(async (tx) => changeUnits(tx, await refOf(cut.property_id), 0));
  const moved = await page(again.next_cursor!);
  expect(moved.data[0]).toMatchObject({ property_id: cut.property_id, from: first.data[0]!.from });
  expect(moved.data[0]!.version).toBeGreaterThan(cut.version);
  expect(moved.data[0]!.data).toHaveLength(365);
});
