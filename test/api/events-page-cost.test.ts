import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { issueKey } from '../../admin/keys.ts';
import type { EventType } from '../../domain/events.ts';
import type { Scope } from '../../domain/scopes.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import type { TestClock } from '../support/clock.ts';
import { appendEvents, propertyIds } from '../support/event-log-seed.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { daysUpTo } from '../support/partitions.ts';
import { explain, statementsOf } from '../support/statement-costs.ts';

// What one page of GET /events costs PostgreSQL, however long the log: each page's own statement,
// captured as the service sent it and run again under EXPLAIN (ANALYZE, BUFFERS). The logs are
// written in bulk as the service's writers write them (test/support/event-log-seed.ts), far
// longer than a page, so a statement that walks them shows in the rows it examines.

const BASE = '/api/v1/distribution';
const DAY = 86_400_000;
/** Many more rows than any page: a statement that reads them instead of an index's range shows. */
const CROWD = 20_000;

let bed: ApiTestBed<TestClock>;
let started: Date;

beforeAll(async () => {
  bed = await apiTestBed();
  started = bed.clock.now();
});

afterEach(() => {
  bed.clock.set(started);
});

type KeyKind = 'catalog' | 'ari' | 'both';
const SCOPES: Record<KeyKind, Scope[]> = {
  catalog: ['read:catalog'],
  ari: ['read:ari'],
  both: ['read:catalog', 'read:ari'],
};

interface Reader {
  channelId: string;
  /** A key by the scopes it holds. */
  keys: Partial<Record<KeyKind, string>>;
  /** The property shown to it: the events written in bulk name it. */
  property: string;
}

let readers = 0;
/** A channel of its own shown one property (its log starts with that distribution), with a key of each kind given (two at most). */
async function reader(kinds: [KeyKind] | [KeyKind, KeyKind]): Promise<Reader> {
  readers += 1;
  const name = `cost-${readers}`;
  const [firstKind, secondKind] = kinds;
  const { channel, key } = await bed.channel({ scopes: SCOPES[firstKind] });
  const keys: Partial<Record<KeyKind, string>> = { [firstKind]: key.key };
  if (secondKind)
    keys[secondKind] = (await issueKey(bed.ctx, { channel: channel.name, scopes: SCOPES[secondKind].join(',') })).key;
  await bed.host.organization(`${name}-org`);
  await bed.host.owner(`${name}-own`, { organization: `${name}-org` });
  await bed.host.location(`${name}-loc`, { organization: `${name}-org`, owner: `${name}-own` });
  await bed.host.property(`${name}-prp`, { location: `${name}-loc`, owner: `${name}-own` });
  await bed.host.distribute(`${name}-prp`, [channel.name]);
  return { channelId: channel.id, keys, property: await propertyOf(channel.id) };
}

/** `count` events of `type` at `at`, each naming the reader's property. */
function writes(who: Reader, type: EventType, count: number, at: Date) {
  return appendEvents(bed.orm, who.channelId, { type, count, at, properties: [who.property] });
}

/** A crowd of events of `type` at `at`, each naming a property of its own. */
function crowd(who: Reader, type: EventType, at: Date) {
  return appendEvents(bed.orm, who.channelId, { type, count: CROWD, at, properties: propertyIds(CROWD, at) });
}

interface LogEvent {
  id: string;
  type: string;
  data: { id: string; version?: number };
}

interface Page {
  events: LogEvent[];
  cursor: string;
  hasMore: boolean;
  /** The page's own statement under EXPLAIN, on the log as it was read. */
  cost: { rowsExamined: number; buffers: number };
}

/** One page, and what its statement costs on the `event` table. */
async function page(key: string, query: { limit: number; cursor?: string }): Promise<Page> {
  const path = `${BASE}/events?limit=${query.limit}${query.cursor === undefined ? '' : `&cursor=${encodeURIComponent(query.cursor)}`}`;
  const { result: res, sent } = await statementsOf(bed.orm, () => bed.api.call('GET', path, { key }));
  expect(res.status, res.text).toBe(200);
  expectMatchesDescription('GET', path, res);
  const statements = sent.filter((statement) => statement.sql.includes(' as log_end'));
  expect(statements).toHaveLength(1);
  const cost = await explain(bed.orm, statements[0]!);
  return {
    events: res.json.data as LogEvent[],
    cursor: res.json.next_cursor as string,
    hasMore: res.json.has_more as boolean,
    cost: { rowsExamined: cost.rowsExamined.event ?? 0, buffers: cost.buffers },
  };
}

/** Rows a page's statement reads besides its events: one probe each of the log's end, of the cursor's event, of where the 35 days start. */
const PROBES = 3;
/**
 * Buffers a page without a cursor may read besides a cursor's page: it reads from the start of
 * the 35 days, and the log is kept in daily partitions (db/partitions.ts), so its three reads
 * (where the 35 days start, the page, the log's last event) may each probe every day once.
 */
const WINDOW_PROBES = 3 * 37;
/** Rows a page of `limit` may examine: the page, the row that says more wait, and the probes. */
const examinedAtMost = (limit: number) => limit + 1 + PROBES;

describe('GET /events without a cursor', () => {
  test('starts at the first event of the 35 days through an index, however many older events wait for the sweep', async () => {
    const who = await reader(['both', 'catalog']);
    // A roll and a day of writes, a day after the log began; 36.5 days later the sweep (which
    // drops events after 36) has not removed them, nor the log's first events.
    const aDayLater = new Date(started.getTime() + DAY);
    await crowd(who, 'availability.updated', aDayLater);
    await writes(who, 'property.updated', 2_000, aDayLater);
    bed.clock.advance(36.5 * DAY);
    await daysUpTo(bed.orm, bed.clock.now());
    const recent = await writes(who, 'property.updated', 5_000, new Date(bed.clock.now().getTime() - 7 * DAY));

    for (const key of [who.keys.both!, who.keys.catalog!]) {
      const first = await page(key, { limit: 100 });
      expect(first.events.map((event) => event.data.version)).toEqual(
        Array.from({ length: 100 }, (_, i) => recent.first + i),
      );
      expect(first.hasMore).toBe(true);
      expect(first.cost.rowsExamined).toBeLessThanOrEqual(examinedAtMost(100));
      expect(first.cost.buffers).toBeLessThanOrEqual(40 + WINDOW_PROBES);
    }
  });
});

describe('GET /events for a key that reads one kind of event', () => {
  test('a page that crosses a run of events the key cannot read examines none of them', async () => {
    const who = await reader(['catalog', 'ari']);
    const at = bed.clock.now();
    const before = await writes(who, 'property.updated', 600, at);
    const roll = await crowd(who, 'availability.updated', at);
    const after = await writes(who, 'property.updated', 600, at);

    // read:catalog: every catalogue event in commit order, the roll skipped through an index. A
    // page reads its events in order, or the few the key can read after the cursor at once, when
    // the planner finds that cheaper: never an event of the roll.
    const readable = await countEvents(who.channelId, "type <> 'availability.updated'");
    const read: LogEvent[] = [];
    let cursor: string | undefined;
    for (;;) {
      const next = await page(who.keys.catalog!, { limit: 500, ...(cursor === undefined ? {} : { cursor }) });
      expect(next.cost.rowsExamined).toBeLessThanOrEqual(PROBES + readable - read.length);
      expect(next.cost.buffers).toBeLessThanOrEqual(120 + (cursor === undefined ? WINDOW_PROBES : 0));
      read.push(...next.events);
      cursor = next.cursor;
      if (!next.hasMore) break;
      expect(next.events).toHaveLength(500);
    }
    expect(read).toHaveLength(readable);
    expect(read.every((event) => event.type !== 'availability.updated')).toBe(true);
    const bulk = read.filter((event) => event.type === 'property.updated');
    expect(bulk.map((event) => event.data.version)).toEqual([
      ...Array.from({ length: 600 }, (_, i) => before.first + i),
      ...Array.from({ length: 600 }, (_, i) => after.first + i),
    ]);

    // read:ari: its first page crosses the 600 catalogue events into the roll.
    const ari = await page(who.keys.ari!, { limit: 500 });
    expect(ari.events).toHaveLength(500);
    expect(ari.hasMore).toBe(true);
    expect(ari.events.every((event) => event.type === 'availability.updated')).toBe(true);
    expect(ari.events.slice(1).map((event) => event.data.id)).toEqual(
      (await rollProperties(who.channelId, roll.first, 499)).map((row) => row.id),
    );
    expect(ari.cost.rowsExamined).toBeLessThanOrEqual(examinedAtMost(500));
    expect(ari.cost.buffers).toBeLessThanOrEqual(120 + WINDOW_PROBES);
  });

  const kinds: [label: 'catalog' | 'ari', unreadable: EventType, readable: EventType][] = [
    ['catalog', 'availability.updated', 'property.updated'],
    ['ari', 'property.updated', 'availability.updated'],
  ];
  test.each(kinds)(
    'with only read:%s, an empty poll moves the cursor past what the key cannot read: the next examines no event',
    async (label, unreadable, readable) => {
      const who = await reader([label]);
      const key = who.keys[label]!;
      const start = await page(key, { limit: 500 });
      expect(start.hasMore).toBe(false);
      const unread = await crowd(who, unreadable, bed.clock.now());

      const first = await page(key, { limit: 500, cursor: start.cursor });
      expect(first).toMatchObject({ events: [], hasMore: false });
      expect(first.cost.rowsExamined).toBeLessThanOrEqual(examinedAtMost(0));
      // Its cursor stands at the log's last event now, which it names.
      expect(payload(first.cursor)).toMatchObject({ p: unread.last, e: await eventIdAt(who.channelId, unread.last) });
      const second = await page(key, { limit: 500, cursor: first.cursor });
      expect(second).toMatchObject({ events: [], hasMore: false });
      // Its page statement finds its cursor at the log's end: one probe of each, nothing scanned.
      expect(second.cost.rowsExamined).toBeLessThanOrEqual(2);
      expect(second.cost.buffers).toBeLessThanOrEqual(30);

      // What the key can read and commits later is read from the moved cursor, and only that.
      const next = await writes(who, readable, 1, bed.clock.now());
      const last = await page(key, { limit: 500, cursor: second.cursor });
      expect(last.events.map((event) => [event.type, event.data.id])).toEqual([[readable, who.property]]);
      expect(await eventIdAt(who.channelId, next.first)).toBe(last.events[0]!.id);
    },
  );
});

/** What a cursor says inside (the service's own format; a channel treats it as opaque). */
function payload(cursor: string): Record<string, unknown> {
  return (
    JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as { p: Record<string, unknown> }
  ).p;
}

async function propertyOf(channelId: string): Promise<string> {
  const [row] = await bed.orm.em
    .fork()
    .execute<{ external_id: string }[]>(
      `select external_id from channel_resource where channel_id = ? and kind = 'property'`,
      [channelId],
    );
  return row!.external_id;
}

async function countEvents(channelId: string, where: string): Promise<number> {
  const [row] = await bed.orm.em
    .fork()
    .execute<{ n: string }[]>(`select count(*) as n from event where channel_id = ? and ${where}`, [channelId]);
  return Number(row!.n);
}

async function rollProperties(channelId: string, from: number, count: number): Promise<{ id: string }[]> {
  return bed.orm.em
    .fork()
    .execute<{ id: string }[]>(
      `select data->>'id' as id from event where channel_id = ? and position >= ? order by position limit ?`,
      [channelId, from, count],
    );
}

async function eventIdAt(channelId: string, position: number): Promise<string | undefined> {
  const [row] = await bed.orm.em
    .fork()
    .execute<{ id: string }[]>('select id from event where channel_id = ? and position = ?', [channelId, position]);
  return row?.id;
}
