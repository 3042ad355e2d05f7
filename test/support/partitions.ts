import type { MikroORM } from '@mikro-orm/postgresql';
import { createDays, keepPartitions, type PartitionFailure } from '../../db/partition-job.ts';
import { dayStart, DAYS_AHEAD, PARTITIONED_TABLES } from '../../db/partitions.ts';

/**
 * The housekeeping pass's partition step at `now` (db/partition-job.ts), for tests that move a
 * clock: the days around `now` exist to write in, those past their window are dropped. Answers
 * how many rows each table lost; throws what it could not do.
 */
export async function keepAllPartitions(
  orm: MikroORM,
  now: Date,
  tables: readonly string[] = PARTITIONED_TABLES.map((spec) => spec.table),
): Promise<Record<string, number>> {
  const lost: Record<string, number> = {};
  for (const spec of PARTITIONED_TABLES.filter((spec) => tables.includes(spec.table))) {
    const count = async () =>
      Number((await orm.em.fork().execute<[{ n: string }]>(`select count(*) as n from ${spec.table}`))[0].n);
    const before = await count();
    const { failures } = await keepPartitions(orm.em.fork(), spec, now);
    if (failures.length > 0)
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `partitions of ${spec.table}`,
      );
    lost[spec.table] = before - (await count());
  }
  return lost;
}

/**
 * Every partitioned table's days from `from` to a week after `until`, as the partition job keeps
 * them ahead of a clock that moved there; nothing is dropped.
 */
export async function daysUpTo(orm: MikroORM, until: Date, from: Date = until): Promise<void> {
  for (const spec of PARTITIONED_TABLES) {
    const failures: PartitionFailure[] = [];
    const end = new Date(dayStart(until).getTime() + (DAYS_AHEAD + 1) * 86_400_000);
    await createDays(orm.em.fork(), spec, new Date(from.getTime() - 86_400_000), end, failures);
    if (failures.length > 0)
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `partitions of ${spec.table}`,
      );
  }
}
