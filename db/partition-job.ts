import type { EntityManager } from '@mikro-orm/postgresql';
import {
  dayStart,
  DAYS_AHEAD,
  historyName,
  isPartitioned,
  keptFrom,
  partitionName,
  partitionsOf,
  type PartitionedTable,
} from './partitions.ts';

// What the housekeeping pass does to a partitioned table (db/partitions.ts): converts it while
// writes go on, creates its days ahead, drops those past its window and sweeps the history
// partition (the table as it was before it was partitioned) until that goes whole too.

const DAY_MS = 24 * 3600 * 1000;
/** Rows of the history partition deleted per statement, and statements per pass at most. */
const SWEEP_BATCH = 5_000;
const SWEEP_BATCHES = 40;
/** How long a change of the tables' shape waits for a lock before it gives up until the next pass. */
const LOCK_TIMEOUT = '5s';

/** What went wrong with one partition: its name and the error's code, for an error-level log line. */
export interface PartitionFailure {
  partition: string;
  action: 'create' | 'drop' | 'convert' | 'sweep';
  error: unknown;
}

/**
 * Makes `spec.table` partitioned. An empty table is replaced at once by a partitioned one with the
 * days of its window and those ahead. A table with rows becomes the history partition of a new
 * partitioned table without being copied: a `NOT VALID` check bounds it below a day boundary at
 * least a day ahead (instant), `VALIDATE` proves it while writes go on, and a short transaction
 * renames it, attaches it under that bound (no scan: the check proves it) and creates the days
 * from there. Each step is idempotent: a pass that stops part-way is taken up by the next.
 */
export async function convertToPartitions(em: EntityManager, spec: PartitionedTable, now: Date): Promise<boolean> {
  if (await isPartitioned(em, spec.table)) return false;
  const [{ empty }] = await em.execute<[{ empty: boolean }]>(
    `select not exists (select 1 from ${spec.table}) as empty`,
  );
  if (empty) {
    const converted = await em.fork().transactional(async (tx) => {
      await tx.execute(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
      await tx.execute(`lock table ${spec.table} in access exclusive mode`);
      const [{ still }] = await tx.execute<[{ still: boolean }]>(
        `select not exists (select 1 from ${spec.table}) as still`,
      );
      if (!still) return false;
      await swap(tx, spec, null);
      return true;
    });
    if (converted) await createAhead(em, spec, new Date(dayStart(keptFrom(spec, now)).getTime() - DAY_MS), now);
    return converted || convertToPartitions(em, spec, now);
  }
  for (const statement of spec.prepare) await em.execute(statement);
  const bound = await historyBound(em, spec, now);
  await em.execute(`alter table ${spec.table} validate constraint ${spec.table}_history_bound`);
  await em.fork().transactional(async (tx) => {
    await tx.execute(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
    await swap(tx, spec, bound);
  });
  await createAhead(em, spec, bound, now);
  return true;
}

/**
 * The upper bound of the history partition-to-be: the check that proves it, added `NOT VALID`
 * when missing. A check whose day is less than half a day ahead is replaced: writes stamped
 * past it would be refused if the conversion stopped before it.
 */
async function historyBound(em: EntityManager, spec: PartitionedTable, now: Date): Promise<Date> {
  const name = `${spec.table}_history_bound`;
  const [row] = await em.execute<{ definition: string }[]>(
    `select pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = ?::regclass and conname = ?`,
    [spec.table, name],
  );
  const current = row ? /'([^']+)'/.exec(row.definition)?.[1] : undefined;
  if (current !== undefined && new Date(current).getTime() > now.getTime() + DAY_MS / 2) return new Date(current);
  const bound = new Date(dayStart(now).getTime() + 2 * DAY_MS);
  await em.execute(`alter table ${spec.table} drop constraint if exists ${name}`);
  await em.execute(
    `alter table ${spec.table} add constraint ${name} check (${spec.column} < '${bound.toISOString()}') not valid`,
  );
  return bound;
}

/** In the caller's transaction: the plain table becomes the history of a new partitioned one. */
async function swap(tx: EntityManager, spec: PartitionedTable, bound: Date | null): Promise<void> {
  const history = historyName(spec.table);
  for (const statement of spec.dropFirst) await tx.execute(statement);
  await tx.execute(`alter table ${spec.table} rename to ${history}`);
  await tx.execute(
    `create table ${spec.table} (like ${history} including defaults) partition by range (${spec.column})`,
  );
  for (const statement of spec.parent) await tx.execute(statement);
  if (bound)
    await tx.execute(
      `alter table ${spec.table} attach partition ${history} for values from (minvalue) to ('${bound.toISOString()}')`,
    );
  else await tx.execute(`drop table ${history}`);
  // The history's own foreign keys are adopted as the parent's: nothing is checked again.
  for (const statement of spec.references) await tx.execute(statement);
}

/**
 * Creates the table's days from the end of its last partition (`from` when it has none) to
 * `DAYS_AHEAD` days after `now`'s.
 */
export async function createAhead(
  em: EntityManager,
  spec: PartitionedTable,
  from: Date,
  now: Date,
  failures: PartitionFailure[] = [],
): Promise<string[]> {
  const last = (await partitionsOf(em, spec.table)).at(-1)?.to;
  const until = new Date(dayStart(now).getTime() + (DAYS_AHEAD + 1) * DAY_MS);
  return createDays(em, spec, last ?? from, until, failures);
}

/**
 * Creates the table's days in `[from, until)` that no partition holds yet, oldest first, and stops
 * at the first it cannot create. Each is made apart and then attached, which locks the parent less
 * than creating it in place would (attaching takes a lock that lets reads and writes go on).
 */
export async function createDays(
  em: EntityManager,
  spec: PartitionedTable,
  from: Date,
  until: Date,
  failures: PartitionFailure[] = [],
): Promise<string[]> {
  const existing = await partitionsOf(em, spec.table);
  const held = (day: Date) => existing.some((p) => (p.from === null || p.from <= day) && (p.to === null || day < p.to));
  const created: string[] = [];
  for (let day = dayStart(from); day < until; day = new Date(day.getTime() + DAY_MS)) {
    if (held(day)) continue;
    const next = new Date(day.getTime() + DAY_MS);
    const name = partitionName(spec.table, day);
    try {
      await em.fork().transactional(async (tx) => {
        await tx.execute(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
        await tx.execute(
          `create table ${name} (like ${spec.table} including defaults including constraints, ${spec.local})`,
        );
        await tx.execute(
          `alter table ${spec.table} attach partition ${name} for values from ('${day.toISOString()}') to ('${next.toISOString()}')`,
        );
      });
      created.push(name);
    } catch (error) {
      failures.push({ partition: name, action: 'create', error });
      break;
    }
  }
  return created;
}

/**
 * Drops the partitions wholly older than the table's window: detached concurrently (writes and
 * reads of the other days go on), then dropped. The history partition, until it goes whole, is
 * swept of its rows past the window, a bounded batch at a time.
 */
export async function dropPast(
  em: EntityManager,
  spec: PartitionedTable,
  now: Date,
  failures: PartitionFailure[] = [],
): Promise<string[]> {
  const cutoff = keptFrom(spec, now);
  const dropped: string[] = [];
  for (const partition of await partitionsOf(em, spec.table)) {
    if (partition.to === null || partition.to > cutoff) {
      if (partition.name === historyName(spec.table)) await sweepHistory(em, spec, cutoff, failures);
      continue;
    }
    try {
      await em.execute(`alter table ${spec.table} detach partition ${partition.name} concurrently`);
      await em.execute(`drop table ${partition.name}`);
      dropped.push(partition.name);
    } catch (error) {
      failures.push({ partition: partition.name, action: 'drop', error });
    }
  }
  return dropped;
}

async function sweepHistory(
  em: EntityManager,
  spec: PartitionedTable,
  cutoff: Date,
  failures: PartitionFailure[],
): Promise<void> {
  const history = historyName(spec.table);
  try {
    for (let batch = 0; batch < SWEEP_BATCHES; batch += 1) {
      const { affectedRows } = await em.execute<{ affectedRows: number }>(
        `delete from ${history} where ctid = any(array(select ctid from ${history} where ${spec.column} < ? limit ${SWEEP_BATCH}))`,
        [cutoff],
        'run',
      );
      if (affectedRows < SWEEP_BATCH) return;
    }
  } catch (error) {
    failures.push({ partition: history, action: 'sweep', error });
  }
}

/**
 * One pass over a table: converted if it is still plain, its days ahead created, those past its
 * window dropped. Answers what could not be done, partition by partition; the rest goes on.
 */
export async function keepPartitions(
  em: EntityManager,
  spec: PartitionedTable,
  now: Date,
): Promise<{ created: string[]; dropped: string[]; failures: PartitionFailure[] }> {
  const failures: PartitionFailure[] = [];
  try {
    await convertToPartitions(em, spec, now);
  } catch (error) {
    failures.push({ partition: spec.table, action: 'convert', error });
    return { created: [], dropped: [], failures };
  }
  const created = await createAhead(em, spec, dayStart(now), now, failures);
  const dropped = await dropPast(em, spec, now, failures);
  return { created, dropped, failures };
}
