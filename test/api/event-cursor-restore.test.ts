import { beforeAll, describe, expect, inject, test } from 'vitest';
import { keepAllPartitions } from '../support/partitions.ts';
import { openDatabase } from '../../db/orm.ts';
import { createScratchDatabase } from '../../db/scratch.ts';
import { encodeCursor, hashQuery } from '../../domain/catalogue/cursor.ts';
import { parseKeyRing } from '../../infra/secrets.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import { TEST_SERVER_SECRET } from '../support/api.ts';
import { onCleanup } from '../support/cleanup.ts';
import { dumpDatabase, restoreDatabase } from '../support/pg-tools.ts';
import type { TestClock } from '../support/clock.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

// The event log across a restore of the service's database, done as docs/operations.md tells it:
// pg_dump of the running service's database, more events written and read by the channels, then
// pg_restore of the dump into a new database and an API on it (same key ring, same clock). The
// restored log ends earlier and hands the positions after its end out again to new events.

const BASE = '/api/v1/distribution';
const DAY = 86_400_000;

type Bed = ApiTestBed<TestClock>;
interface Reader {
  channelId: string;
  key: string;
  ref: string;
  location: string;
  owner: string;
}
interface LogEvent {
  id: string;
  type: string;
}

let source: Bed;
let restored: Bed;

/** A channel of its own with a property of its own distributed to it: its log starts with that distribution. */
async function reader(bed: Bed, name: string): Promise<Reader> {
  const { channel, key } = await bed.channel({ scopes: ['read:catalog'] });
  const [org, owner, location, ref] = ['org', 'own', 'loc', 'prp'].map((kind) => `${name}-${kind}`) as [
    string,
    string,
    string,
    string,
  ];
  await bed.host.organization(org);
  await bed.host.owner(owner, { organization: org });
  await bed.host.location(location, { organization: org, owner });
  await bed.host.property(ref, { location, owner });
  await bed.host.distribute(ref, [channel.name]);
  return { channelId: channel.id, key: key.key, ref, location, owner };
}

let units = 1;
/** One more event in the reader's log: its property's unit count changes (`property.updated`). */
async function change(bed: Bed, who: Reader, times = 1): Promise<void> {
  for (let i = 0; i < times; i += 1) {
    units += 1;
    await bed.host.property(who.ref, { location: who.location, owner: who.owner, units });
  }
}

async function read(bed: Bed, who: Reader, cursor?: string) {
  const query = cursor === undefined ? 'limit=500' : `limit=500&cursor=${encodeURIComponent(cursor)}`;
  const res = await bed.api.call('GET', `${BASE}/events?${query}`, { key: who.key });
  expectMatchesDescription('GET', `${BASE}/events?${query}`, res);
  return res;
}

/** Reads the reader's log to its end: the events, and the cursor to poll with. */
async function readToEnd(bed: Bed, who: Reader, cursor?: string): Promise<{ events: LogEvent[]; cursor: string }> {
  const res = await read(bed, who, cursor);
  expect(res.status, res.text).toBe(200);
  expect(res.json.has_more).toBe(false);
  return { events: res.json.data as LogEvent[], cursor: res.json.next_cursor as string };
}

/** What a cursor says inside (the service's own format; a channel treats it as opaque). */
function payload(cursor: string): { p: Record<string, unknown> } {
  return JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as { p: Record<string, unknown> };
}

/** A cursor as the service issued them before they carried the event id: a position and a time. */
async function oldFormatCursor(who: Reader, position: number, at: Date): Promise<string> {
  const ring = parseKeyRing({ serverSecret: TEST_SERVER_SECRET, serverSecrets: undefined, serverGeoSecret: undefined });
  return encodeCursor({ p: position, t: at.getTime() }, hashQuery({ kind: 'events', channel: who.channelId }), ring);
}

function expectRestoredRefusal(res: Awaited<ReturnType<typeof read>>): void {
  expectProblem(res, 410, 'event_cursor_expired');
  expect(res.json.detail).toMatch(/does not hold this cursor's position .*restored from a backup/);
}

/** Readers whose logs the restore cuts, and what they held before it. */
let cut: Reader;
let oldFormat: Reader;
const before = {
  snapshotCursor: '',
  endCursor: '',
  idleCursor: '',
  eventsAfterSnapshot: [] as LogEvent[],
  oldFormatEnd: 0,
};

beforeAll(async () => {
  source = await apiTestBed();
  cut = await reader(source, 'cut');
  oldFormat = await reader(source, 'old');
  before.snapshotCursor = (await readToEnd(source, cut)).cursor;

  const dump = await dumpDatabase(source.databaseUrl);

  // After the backup: the channels read past its end.
  await change(source, cut, 2);
  const end = await readToEnd(source, cut, before.snapshotCursor);
  expect(end.events.map((event) => event.type)).toEqual(['property.updated', 'property.updated']);
  before.eventsAfterSnapshot = end.events;
  before.endCursor = end.cursor;
  const idle = await readToEnd(source, cut, end.cursor);
  expect(idle.events).toEqual([]);
  before.idleCursor = idle.cursor;
  await change(source, oldFormat, 2);
  before.oldFormatEnd = payload((await readToEnd(source, oldFormat)).cursor).p['p'] as number;

  const target = await createScratchDatabase(inject('pgServerUrl'), 'svc_restored');
  onCleanup(target.drop);
  await restoreDatabase(dump, target.url);
  const orm = await openDatabase(target.url);
  onCleanup(() => orm.close(true));
  restored = await apiTestBed({ database: { orm, url: target.url }, clock: source.clock });
});

describe('a log restored from a backup taken before a channel read past it', () => {
  test('refuses the cursors from past the backup with 410 event_cursor_expired, before and after new events take their positions, while a cursor from before the backup reads every new event', async () => {
    // Nothing written since the restore: the log ends before the cursors' position.
    expectRestoredRefusal(await read(restored, cut, before.endCursor));
    expectRestoredRefusal(await read(restored, cut, before.idleCursor));

    await change(restored, cut, 3);
    // The positions the channel had read are handed out again: the cursor from the backup's end
    // reads all three new events, none of which the channel saw before the restore.
    const fresh = await readToEnd(restored, cut, before.snapshotCursor);
    expect(fresh.events.map((event) => event.type)).toEqual([
      'property.updated',
      'property.updated',
      'property.updated',
    ]);
    const seen = new Set(before.eventsAfterSnapshot.map((event) => event.id));
    expect(fresh.events.filter((event) => seen.has(event.id))).toEqual([]);
    // The cursors from past the backup would skip the first two of them: refused instead.
    expectRestoredRefusal(await read(restored, cut, before.endCursor));
    expectRestoredRefusal(await read(restored, cut, before.idleCursor));

    // Starting again without a cursor works, and its cursor polls on.
    const again = await readToEnd(restored, cut);
    expect(again.events.slice(-3)).toEqual(fresh.events);
    await change(restored, cut);
    expect((await readToEnd(restored, cut, again.cursor)).events.map((event) => event.type)).toEqual([
      'property.updated',
    ]);
  });

  test('refuses a cursor without the event id (issued before it was carried) while the log ends before its position', async () => {
    const cursor = await oldFormatCursor(oldFormat, before.oldFormatEnd, restored.clock.now());
    expectRestoredRefusal(await read(restored, oldFormat, cursor));
  });
});

describe('an intact log', () => {
  test('a cursor reads the new events after a full page and after an empty one', async () => {
    const who = await reader(source, 'intact');
    const start = await readToEnd(source, who);
    await change(source, who, 2);
    const next = await readToEnd(source, who, start.cursor);
    expect(next.events.map((event) => event.type)).toEqual(['property.updated', 'property.updated']);
    const idle = await readToEnd(source, who, next.cursor);
    expect(idle.events).toEqual([]);
    await change(source, who);
    const last = await readToEnd(source, who, idle.cursor);
    expect(last.events.map((event) => event.type)).toEqual(['property.updated']);
    expect(last.events[0]!.id).not.toBe(next.events[1]!.id);
  });

  test('a cursor without the event id reads on as before, and the cursor it gets back names the event at its position', async () => {
    const who = await reader(source, 'upgraded');
    const { events, cursor } = await readToEnd(source, who);
    const position = payload(cursor).p['p'] as number;
    const old = await oldFormatCursor(who, position, source.clock.now());

    const idle = await readToEnd(source, who, old);
    expect(idle.events).toEqual([]);
    expect(payload(idle.cursor).p).toMatchObject({ p: position, e: events.at(-1)!.id });
    await change(source, who);
    const [fromOld, fromUpgraded] = [await readToEnd(source, who, old), await readToEnd(source, who, idle.cursor)];
    expect(fromOld.events.map((event) => event.type)).toEqual(['property.updated']);
    expect(fromUpgraded.events).toEqual(fromOld.events);
  });

  // Last: it moves the clock and drops every event of the source's log.
  test('a cursor whose event retention dropped still reads, still names that event, and reads what comes next', async () => {
    const who = await reader(source, 'quiet');
    const start = await readToEnd(source, who);
    const clock = source.clock;
    const started = clock.now();
    try {
      clock.advance(30 * DAY);
      const polled = await readToEnd(source, who, start.cursor);
      expect(polled.events).toEqual([]);
      clock.advance(7 * DAY);
      expect((await keepAllPartitions(source.orm, clock.now(), ['event'])).event).toBeGreaterThan(0);
      expect((await readToEnd(source, who)).events).toEqual([]);

      const after = await readToEnd(source, who, polled.cursor);
      expect(after.events).toEqual([]);
      // It still names the dropped event, so a restore later on is still caught.
      expect(payload(after.cursor).p).toMatchObject({ p: payload(start.cursor).p['p'], e: start.events.at(-1)!.id });
      await change(source, who);
      expect((await readToEnd(source, who, after.cursor)).events.map((event) => event.type)).toEqual([
        'property.updated',
      ]);
    } finally {
      clock.set(started);
    }
  });
});
