import { readFileSync } from 'node:fs';

/** Anything that runs SQL and answers rows: a `pg` client or pool, or a MikroORM connection's `execute`. */
export type RowQuery = (sql: string) => Promise<{ pid: number }[]>;

/** Linux counts a process's CPU in ticks of 1/100 s. */
const TICK_MS = 1000 / 100;

/**
 * CPU of the PostgreSQL backends serving the current database so far, in ms: their
 * /proc/<pid>/stat (Linux; the server runs on this machine), ticks of 10 ms. A backend that
 * ended in between is not counted; the bench's own idle connection costs nothing while it waits.
 * null when /proc cannot be read (not Linux, or PostgreSQL elsewhere).
 */
export async function postgresCpuMs(query: RowQuery): Promise<number | null> {
  const pids = await query('select pid from pg_stat_activity where datname = current_database()');
  try {
    return pids.reduce((sum, { pid }) => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return sum + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    }, 0);
  } catch {
    return null;
  }
}
