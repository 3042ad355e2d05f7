import pg from 'pg';
import { expect, test, vi } from 'vitest';
import { onCleanup } from '../support/cleanup.ts';
import { startPostgresChild } from '../support/global-setup.ts';
import { dataDir, heldPort, processesNaming } from '../support/start-process.ts';

// The test run's own embedded PostgreSQL (test/support/global-setup.ts) beside a default
// `npm start`, which holds EMBEDDED_PG_PORT's default: the tests take a port of their own.

test("the test run's embedded PostgreSQL takes a free port when another process holds EMBEDDED_PG_PORT", async () => {
  const held = await heldPort();
  // The child inherits this process's environment, as the run's global setup gives it.
  vi.stubEnv('EMBEDDED_PG_PORT', String(held));
  onCleanup(() => vi.unstubAllEnvs());
  const dir = await dataDir();
  const server = await startPostgresChild(dir);
  expect(Number(new URL(server.serverUrl).port)).not.toBe(held);
  const client = new pg.Client({ connectionString: server.serverUrl });
  await client.connect();
  expect((await client.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  await client.end();
  // Rejects unless the child stops with 0.
  await server.stop();
  expect(await processesNaming(dir)).toEqual([]);
}, 120_000);
