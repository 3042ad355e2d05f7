import { inject } from 'vitest';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openDatabase } from '../../db/orm.ts';
import { onCleanup } from './cleanup.ts';

/**
 * A database of this test file's own, cloned from the run's migrated template: isolated from
 * other files, and built by the migrations rather than by the entities.
 */
export async function freshDatabase(): Promise<{ orm: MikroORM; url: string }> {
  const serverUrl = inject('pgServerUrl');
  const name = `svc_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject('templateDatabase')}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const orm = await openDatabase(url.toString());
  onCleanup(async () => {
    await orm.close(true);
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => client.end());
  });
  return { orm, url: url.toString() };
}

/** Waits (bounded) until a session of the database of `orm` is blocked on a lock: a writer has reached the lock a test holds. */
export async function waitingOnALock(orm: MikroORM, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em
      .fork()
      .execute<{ waiting: string }[]>(
        `select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
    if (Number(row!.waiting) > 0) return;
    if (Date.now() > deadline) throw new Error(`no session waited on a lock within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
