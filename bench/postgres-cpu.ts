import { existsSync, readFileSync } from 'node:fs';

/** Anything that runs SQL and answers rows: a `pg` client or pool, or a MikroORM connection's `execute`. */
export type RowQuery = (sql: string) => Promise<{ pid: number }[]>;

/** CPU so far of each PostgreSQL backend serving the current database, in ms, by pid. */
export type BackendCpu = Map<number, number>;

/** Linux counts a process's CPU in ticks of 1/100 s. */
const TICK_MS = 1000 / 100;

/**
 * The CPU each backend of the current database has used so far: its /proc/<pid>/stat (Linux; the
 * server runs on this machine), in ticks of 10 ms. A backend that ends before it is read is left
 * out. null when /proc cannot be read (not Linux, or PostgreSQL elsewhere).
 */
export async function postgresCpu(query: RowQuery): Promise<BackendCpu | null> {
  const pids = await query('select pid from pg_stat_activity where datname = current_database()');
  if (!existsSync('/proc/self/stat')) return null;
  const cpu: BackendCpu = new Map();
  for (const { pid } of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended since the query
    }
    const fields = stat.split(') ')[1]!.split(' ');
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
  }
  return cpu;
}

/**
 * The CPU PostgreSQL spent between two readings, backend by backend: a backend in both counts
 * its growth, one started in between all it used. A backend that ended in between is not counted
 * (its last figures died with it), so the sum may fall short, never below zero; a sum of the two
 * readings' totals subtracted could, when a pooled connection closed between them.
 */
export function postgresCpuBetween(before: BackendCpu | null, after: BackendCpu | null): number | null {
  if (before === null || after === null) return null;
  let spent = 0;
  for (const [pid, ms] of after) spent += Math.max(0, ms - (before.get(pid) ?? 0));
  return spent;
}
