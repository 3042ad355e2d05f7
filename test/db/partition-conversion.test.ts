import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { ormOptions } from '../../db/orm.ts';
import { convertToPartitions, keepPartitions } from '../../db/partition-job.ts';
import {
  dayStart,
  daysAhead,
  DAYS_AHEAD,
  historyName,
  isPartitioned,
  partitionsOf,
  PARTITIONED_TABLES,
} from '../../db/partitions.ts';
import { createScratchDatabase } from '../../db/scratch.ts';

// An installation from before the partitions: its log, deliveries and attempts are plain tables
// with rows. The housekeeping pass converts each while writes go on, without copying it: the
// plain table becomes the history partition, and the days from its bound on are partitions.

const DAY = 86_400_000;
const CHANNEL = '6f1c1d52-52c4-4e8a-9f65-0d2f8c9e1a01';
const ENDPOINT = 'whk_01kconversion00000000000001';

let orm: MikroORM;
let drop: () => Promise<void>;

beforeAll(async () => {
  const scratch = await createScratchDatabase(inject('pgServerUrl'), 'svc_test_conversion');
  drop = scratch.drop;
  // The schema as the migrations alone leave it: the tables are still plain.
  orm = await MikroORM.init(ormOptions(scratch.url));
  await orm.migrator.up();
  const em = orm.em.fork();
  await em.execute(
    `insert into channel (id, name, status, rate_limit_per_minute, created_at) values (?, 'conversion', 'active', 600, now())`,
    [CHANNEL],
  );
  await em.execute(`insert into channel_log (channel_id, last_stamp, last_position) values (?, now(), 0)`, [CHANNEL]);
  await em.execute(
    `insert into webhook_endpoint (id, channel_id, url, events, status, secret_generation, created_at, updated_at)
     values (?, ?, 'https://receiver.example/hook', '{*}', 'active', 1, now(), now())`,
    [ENDPOINT, CHANNEL],
  );
  // Ten days of rows, the oldest 40 days back: some already past every window.
  await em.execute(
    `insert into event (channel_id, position, id, type, occurred_at, data)
     select ?, i, 'evt_' || lpad(i::text, 26, '0'), 'property.updated', now() - (40 - i / 100.0) * interval '1 day', '{}'
       from generate_series(1, 4000) i`,
    [CHANNEL],
  );
  await em.execute(
    `insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, state, attempts, created_at)
     select 'dlv_' || lpad(i::text, 26, '0'), ?, 'evt_' || lpad(i::text, 26, '0'), 'property.updated', '{}', 'delivered', 1,
            now() - (40 - i / 100.0) * interval '1 day'
       from generate_series(1, 4000) i`,
    [ENDPOINT],
  );
  await em.execute(
    `insert into webhook_attempt (delivery_id, number, attempted_at, status_code, duration_ms)
     select id, 1, created_at, 200, 12 from webhook_delivery`,
  );
});

afterAll(async () => {
  await orm?.close(true);
  await drop?.();
});

const count = async (table: string) =>
  Number((await orm.em.fork().execute<[{ n: string }]>(`select count(*) as n from ${table}`))[0].n);

/** Appends events as fast as it can until stopped; answers what it wrote and every error it met. */
function writer() {
  let stop = false;
  const errors: unknown[] = [];
  let written = 0;
  const done = (async () => {
    for (let i = 0; !stop && i < 5_000; i += 1) {
      try {
        await orm.em.fork().transactional(async (tx) => {
          const [row] = await tx.execute<{ position: string }[]>(
            `update channel_log set last_position = last_position + 1, last_stamp = greatest(now(), last_stamp + interval '1 millisecond')
              where channel_id = ? returning last_position as position`,
            [CHANNEL],
          );
          await tx.execute(
            `insert into event (channel_id, position, id, type, occurred_at, data)
             select ?, ?, 'evt_w' || lpad(?::text, 25, '0'), 'property.updated', last_stamp, '{}' from channel_log where channel_id = ?`,
            [CHANNEL, Number(row!.position) + 100_000, row!.position, CHANNEL],
          );
        });
        written += 1;
      } catch (error) {
        errors.push(error);
      }
    }
  })();
  return {
    stop: async () => {
      stop = true;
      await done;
      return { written, errors };
    },
  };
}

describe('converting a live installation', () => {
  test('each table becomes partitioned with its rows in place, while events are written the whole time, none refused', async () => {
    const before = { event: await count('event'), webhook_delivery: 4000, webhook_attempt: 4000 };
    const writing = writer();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = new Date();
    for (const spec of PARTITIONED_TABLES) expect(await convertToPartitions(orm.em.fork(), spec, now)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { written, errors } = await writing.stop();

    expect(errors).toEqual([]);
    expect(written).toBeGreaterThan(0);
    for (const spec of PARTITIONED_TABLES) {
      expect(await isPartitioned(orm.em.fork(), spec.table)).toBe(true);
      const partitions = await partitionsOf(orm.em.fork(), spec.table);
      // The history holds everything up to the day after tomorrow; the days from there are ready.
      const bound = new Date(dayStart(now).getTime() + 2 * DAY);
      expect(partitions[0]).toEqual({ name: historyName(spec.table), from: null, to: bound });
      expect(partitions.at(-1)!.to).toEqual(new Date(dayStart(now).getTime() + (DAYS_AHEAD + 1) * DAY));
    }
    // No row was copied or lost: the history partition is the table it was.
    expect(await count('event')).toBe(before.event + written);
    expect(await count('event_history')).toBe(before.event + written);
    expect(await count('webhook_delivery')).toBe(before.webhook_delivery);
    expect(await count('webhook_attempt')).toBe(before.webhook_attempt);
    // The gauge operators watch says how long writes go on without the pass: to the last day's end.
    const ahead = (dayStart(now).getTime() + (DAYS_AHEAD + 1) * DAY - now.getTime()) / DAY;
    expect(await daysAhead(orm.em.fork(), now)).toEqual(
      expect.arrayContaining(PARTITIONED_TABLES.map((spec) => ({ table: spec.table, days: ahead }))),
    );
    // A second pass finds nothing to convert.
    for (const spec of PARTITIONED_TABLES) expect(await convertToPartitions(orm.em.fork(), spec, now)).toBe(false);
  });

  test('the history partition is swept of what is past its window, then dropped whole once all of it is', async () => {
    const event = PARTITIONED_TABLES.find((spec) => spec.table === 'event')!;
    const now = new Date();
    // The history holds the 4,000 seeded events and those the writer added during the conversion.
    const unswept = await count('event_history');
    const kept = await keepPartitions(orm.em.fork(), event, now);
    expect(kept.failures).toEqual([]);
    // Events are kept 36 days: the 4 oldest of the 40 days are gone, row by row.
    const [{ oldest }] = await orm.em
      .fork()
      .execute<[{ oldest: string }]>('select min(occurred_at) as oldest from event_history');
    expect(new Date(oldest).getTime()).toBeGreaterThanOrEqual(now.getTime() - 36 * DAY);
    expect(await count('event_history')).toBeLessThan(unswept);

    // 36 days after the history's bound, every row in it is past the window: it goes whole.
    const later = new Date(dayStart(now).getTime() + 2 * DAY + 36 * DAY);
    const after = await keepPartitions(orm.em.fork(), event, later);
    expect(after.failures).toEqual([]);
    expect(after.dropped).toContain(historyName('event'));
    expect((await partitionsOf(orm.em.fork(), 'event')).map((p) => p.name)).not.toContain(historyName('event'));
  });
});
