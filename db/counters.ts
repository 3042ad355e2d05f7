import type { EntityManager } from '@mikro-orm/postgresql';

export const WINDOW_MS = 60_000;

export interface WindowCount {
  count: number;
  /** Whole seconds (at least 1) until the window ends: `Retry-After` and `RateLimit-Reset`. */
  resetSeconds: number;
}

/**
 * Adds `units` to the bucket's current one-minute window and returns the new total. One atomic
 * upsert, so concurrent API processes sharing the database never both see room that is not there.
 */
export async function addToWindow(em: EntityManager, bucket: string, units: number, now: Date): Promise<WindowCount> {
  const { windowStart, resetSeconds } = windowAt(now);
  const rows = await em.getConnection().execute<{ count: number }[]>(
    `insert into request_counter (bucket, window_start, count) values (?, ?, ?)
     on conflict (bucket, window_start) do update set count = request_counter.count + excluded.count
     returning count`,
    [bucket, windowStart, units],
  );
  return { count: rows[0]!.count, resetSeconds };
}

/** The one-minute window `now` falls in: its start (the counter's key) and the whole seconds left in it. */
export function windowAt(now: Date): { windowStart: Date; resetSeconds: number } {
  const windowStart = new Date(Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS);
  return {
    windowStart,
    resetSeconds: Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now.getTime()) / 1000)),
  };
}

/** Past windows are worthless; dropping them keeps the table to a few rows per active client. */
export async function dropPastWindows(em: EntityManager, now: Date): Promise<void> {
  await em
    .getConnection()
    .execute('delete from request_counter where window_start < ?', [new Date(now.getTime() - 2 * WINDOW_MS)]);
}
