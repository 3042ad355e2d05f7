import { beforeAll, describe, expect, test } from 'vitest';
import { dayStart, DAYS_AHEAD, partitionName, partitionsOf } from '../../db/partitions.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import type { TestClock } from '../support/clock.ts';
import { appendEvents } from '../support/event-log-seed.ts';
import { expectProblem } from '../support/problems.ts';
import { keepAllPartitions } from '../support/partitions.ts';

// A week of the partition job (the housekeeping pass's partition step) at its daily work, with
// channels reading the log the whole time: events are written across each midnight, so every
// day's batch straddles two partitions, and the job creates and drops days between the reads.
// The cursor, commit-order and 35-day rules hold across those boundaries.

const BASE = '/api/v1/distribution';
const DAY = 86_400_000;

let bed: ApiTestBed<TestClock>;
let channelId: string;
let key: string;
let property: string;
/** The first midnight of the week, and a cursor issued before it that is never polled again. */
let firstMidnight: number;
let stale: string;

beforeAll(async () => {
  bed = await apiTestBed();
  const { channel, key: issued } = await bed.channel({ scopes: ['read:catalog', 'read:ari'] });
  channelId = channel.id;
  key = issued.key;
  await bed.host.organization('week-org');
  await bed.host.owner('week-own', { organization: 'week-org' });
  await bed.host.location('week-loc', { organization: 'week-org', owner: 'week-own' });
  await bed.host.property('week-prp', { location: 'week-loc', owner: 'week-own' });
  await bed.host.distribute('week-prp', [channel.name]);
  const [row] = await bed.orm.em
    .fork()
    .execute<{ external_id: string }[]>(
      `select external_id from channel_resource where channel_id = ? and kind = 'property'`,
      [channelId],
    );
  property = row!.external_id;
});

interface Read {
  versions: number[];
  occurredAt: string[];
  cursor: string;
  hasMore: boolean;
}

async function read(cursor: string | undefined, limit = 500): Promise<Read> {
  const path = `${BASE}/events?limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
  const res = await bed.api.call('GET', path, { key });
  expect(res.status, res.text).toBe(200);
  const data = res.json.data as { occurred_at: string; data: { version?: number } }[];
  return {
    versions: data.map((event) => event.data.version!),
    occurredAt: data.map((event) => event.occurred_at),
    cursor: res.json.next_cursor as string,
    hasMore: res.json.has_more as boolean,
  };
}

/** The event partitions' days, `YYYYMMDD`, oldest first. */
async function eventDays(): Promise<string[]> {
  return (await partitionsOf(bed.orm.em.fork(), 'event')).map((p) => p.name.replace('event_p', ''));
}

const dayOf = (ms: number) => partitionName('event', new Date(ms)).replace('event_p', '');

describe('a week of the partition job under reading channels', () => {
  test('each day straddles midnight; a daily reader, a one-at-a-time reader and a first page see every event in commit order, and the job keeps a week ahead', async () => {
    firstMidnight = dayStart(bed.clock.now()).getTime() + DAY;
    const daily = await read(undefined);
    stale = daily.cursor;
    let dailyCursor = daily.cursor;
    let stepCursor = daily.cursor;
    const written: number[] = [];

    for (let d = 0; d < 7; d += 1) {
      const midnight = firstMidnight + d * DAY;
      // Four events a millisecond apart from two before midnight: two days' partitions.
      bed.clock.set(new Date(midnight - 2));
      await keepAllPartitions(bed.orm, bed.clock.now());
      const block = await appendEvents(bed.orm, channelId, {
        type: 'property.updated',
        count: 4,
        at: new Date(midnight - 2),
        properties: [property],
      });
      written.push(block.first, block.first + 1, block.first + 2, block.first + 3);
      bed.clock.set(new Date(midnight + 12 * 3600_000));
      await keepAllPartitions(bed.orm, bed.clock.now());

      // The job holds the day before midnight, the day after and a week ahead of it, none missing.
      const days = await eventDays();
      const ahead = Array.from({ length: DAYS_AHEAD + 2 }, (_, k) => dayOf(midnight - DAY + k * DAY));
      expect(ahead.filter((day) => !days.includes(day))).toEqual([]);

      const polled = await read(dailyCursor);
      expect(polled.versions).toEqual([block.first, block.first + 1, block.first + 2, block.first + 3]);
      expect(polled.occurredAt.map((at) => at.slice(0, 10))).toEqual([
        new Date(midnight - 1).toISOString().slice(0, 10),
        new Date(midnight - 1).toISOString().slice(0, 10),
        new Date(midnight).toISOString().slice(0, 10),
        new Date(midnight).toISOString().slice(0, 10),
      ]);
      dailyCursor = polled.cursor;

      // One event a page: the cursor stands before midnight, then after it.
      for (const version of [block.first, block.first + 1, block.first + 2, block.first + 3]) {
        const step = await read(stepCursor, 1);
        expect(step.versions).toEqual([version]);
        stepCursor = step.cursor;
      }
      expect((await read(stepCursor, 1)).versions).toEqual([]);
    }

    // A first page starts at the 35 days' first event and reads the week in commit order.
    const all: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const next = await read(cursor, 5);
      all.push(...next.versions);
      cursor = next.cursor;
      if (!next.hasMore) break;
    }
    expect(all.filter((version) => written.includes(version))).toEqual(written);
    const versioned = all.filter((version) => version !== undefined);
    expect([...versioned].sort((a, b) => a - b)).toEqual(versioned);
  });

  test('35 days on: the day before a midnight goes first, the day after a day later; cursors are valid until 35 days and read what is left', async () => {
    // The week's first midnight: events at 23:59:59.998 and .999, and at 00:00:00.000 and .001.
    const midnight = firstMidnight;

    // 36 days and a half after that midnight: the day before it is wholly past the 36 days and
    // gone; the day after is still kept.
    bed.clock.set(new Date(midnight + 36.5 * DAY));
    await keepAllPartitions(bed.orm, bed.clock.now());
    const days = await eventDays();
    expect(days).not.toContain(dayOf(midnight - 1));
    expect(days).toContain(dayOf(midnight));
    // The oldest day kept is the one whose end is not 36 days old.
    expect(days[0]).toBe(dayOf(midnight));

    // A first page starts at the 35 days: after that first midnight's events.
    const first = await read(undefined, 500);
    const firstStamps = first.occurredAt.map((at) => new Date(at).getTime());
    expect(Math.min(...firstStamps)).toBeGreaterThanOrEqual(bed.clock.now().getTime() - 35 * DAY - 1000);

    // The cursor issued before the week began, never polled since: older than 35 days, refused.
    expectProblem(
      await bed.api.call('GET', `${BASE}/events?cursor=${encodeURIComponent(stale)}`, { key }),
      410,
      'event_cursor_expired',
    );
    // The last cursor of the week is younger: it reads on, and what is written next.
    const tail = await read(first.cursor);
    expect(tail.versions).toEqual([]);
    const next = await appendEvents(bed.orm, channelId, {
      type: 'property.updated',
      count: 1,
      at: bed.clock.now(),
      properties: [property],
    });
    expect((await read(tail.cursor)).versions).toEqual([next.first]);
  });
});
