import type { EntityManager } from '@mikro-orm/postgresql';

// The progress row of a task queue's certificate-expiry catch-up, and what the metrics read of it.

/** Properties in the catalogue: what a pass of the catch-up will visit, counted when it begins. */
export async function countProperties(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>('select count(*) as n from property');
  return Number(row!.n);
}

/** A pass begins: `remaining` properties to visit; when the last pass finished is kept. */
export async function beginCatchUp(em: EntityManager, taskQueue: string, remaining: number, at: Date): Promise<void> {
  await em.execute(
    `insert into certificate_expiry_catch_up (task_queue, remaining, started_at) values (?, ?, ?)
     on conflict (task_queue) do update set remaining = excluded.remaining, started_at = excluded.started_at`,
    [taskQueue, remaining, at],
  );
}

/** After a batch: `remaining` properties to visit, and, when the pass is over, the instant it finished. */
export async function recordCatchUp(
  em: EntityManager,
  taskQueue: string,
  progress: { remaining: number; finishedAt?: Date },
): Promise<void> {
  await em.execute(
    `update certificate_expiry_catch_up set remaining = ?, finished_at = coalesce(?, finished_at) where task_queue = ?`,
    [progress.remaining, progress.finishedAt ?? null, taskQueue],
  );
}

export interface CatchUpProgress {
  taskQueue: string;
  remaining: number;
  /** When the last pass ended; null before one ended. */
  finishedAt: Date | null;
}

/** The catch-up's progress of each task queue of this database (one row each, a handful at most). */
export async function catchUpProgress(em: EntityManager): Promise<CatchUpProgress[]> {
  const rows = await em.execute<{ task_queue: string; remaining: number; finished_at: Date | null }[]>(
    'select task_queue, remaining, finished_at from certificate_expiry_catch_up order by task_queue limit 100',
  );
  return rows.map((row) => ({
    taskQueue: row.task_queue,
    remaining: row.remaining,
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  }));
}
