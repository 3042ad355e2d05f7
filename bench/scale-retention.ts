/**
 * `bench:scale`'s retention case: one housekeeping pass (services/housekeeping.ts, every step, as
 * the scheduled workflow runs it) at the instant the size's history was built plus a minute, when
 * its oldest day of events and of deliveries is past the window; then the days it dropped made
 * again and their rows written again, so that the next run finds the same day to take.
 */
import type pg from 'pg';
import { createDays, type PartitionFailure } from '../db/partition-job.ts';
import { PARTITIONED_TABLES, partitionsOf, type Partition, type PartitionedTable } from '../db/partitions.ts';
import { runHousekeeping } from '../services/housekeeping.ts';
import type { BenchStand } from './service-stand.ts';
import type { SizeDatabase } from './scale-build.ts';
import { restoreOldestDays } from './scale-history.ts';
import { DAY_MS } from './scale-plan.ts';

export interface RetentionFigures {
  seconds: number;
  /** Rows past the window before the pass, by table. */
  past: Record<string, number>;
  /** And after it: a pass that drops whole days leaves those of a day partly in the window. */
  left: Record<string, number>;
  /** Steps that failed, by name; empty when the pass succeeded. */
  failed: string[];
}

async function pastTheWindow(sql: pg.Client, at: Date): Promise<Record<string, number>> {
  const count = async (text: string, days: number) =>
    Number((await sql.query<{ n: string }>(text, [new Date(at.getTime() - days * DAY_MS)])).rows[0]!.n);
  return {
    event: await count('select count(*) as n from event where occurred_at < $1', 36),
    webhook_delivery: await count('select count(*) as n from webhook_delivery where created_at < $1', 35),
    webhook_attempt: await count('select count(*) as n from webhook_attempt where attempted_at < $1', 35),
  };
}

/** Each partitioned table's days, by table. */
async function days(stand: BenchStand): Promise<Map<PartitionedTable, Partition[]>> {
  const em = stand.orm.em.fork();
  return new Map(
    await Promise.all(PARTITIONED_TABLES.map(async (spec) => [spec, await partitionsOf(em, spec.table)] as const)),
  );
}

export async function retentionCase(stand: BenchStand, size: SizeDatabase, sql: pg.Client): Promise<RetentionFigures> {
  const at = new Date(size.builtAt.getTime() + 60_000);
  const deps = { ...stand.deps, clock: { now: () => at } };
  const past = await pastTheWindow(sql, at);
  const before = await days(stand);
  const started = performance.now();
  const failed = await runHousekeeping(deps);
  const seconds = Math.round(performance.now() - started) / 1000;
  const left = await pastTheWindow(sql, at);
  // The days the pass dropped, made again as the service makes a table's days, then their rows.
  const after = await days(stand);
  for (const [spec, partitions] of before) {
    const kept = new Set(after.get(spec)!.map((partition) => partition.name));
    const dropped = partitions.filter((partition) => !kept.has(partition.name) && partition.from && partition.to);
    if (dropped.length === 0) continue;
    const failures: PartitionFailure[] = [];
    await createDays(stand.orm.em.fork(), spec, dropped[0]!.from!, dropped.at(-1)!.to!, failures);
    if (failures.length > 0)
      throw new Error(`could not make ${failures[0]!.partition} again`, { cause: failures[0]!.error });
  }
  await restoreOldestDays(sql, size.plan, size.context);
  return { seconds, past, left, failed };
}
