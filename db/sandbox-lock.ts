import type { EntityManager } from '@mikro-orm/postgresql';

/** The session lock one sandbox catalogue generation holds: any constant, the same in every process. */
const SANDBOX_CATALOGUE_LOCK = 7_140_240;

/**
 * Runs `work` while this session holds the sandbox catalogue's advisory lock, or not at all when
 * another process holds it: two processes starting together never both generate. The lock is
 * held on a connection of the pool set aside for it and ends with the session if the process dies.
 */
export async function whileSandboxLockHeld<T>(
  em: EntityManager,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  const pool = await em.getConnection().getNativeClient();
  const session = await pool.connect();
  try {
    const { rows } = await session.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [
      SANDBOX_CATALOGUE_LOCK,
    ]);
    if (!rows[0]?.locked) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await session.query('select pg_advisory_unlock($1)', [SANDBOX_CATALOGUE_LOCK]);
    }
  } finally {
    session.release();
  }
}
