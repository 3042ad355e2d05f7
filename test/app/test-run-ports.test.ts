import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { expect, test } from 'vitest';
import { childEnv, ROOT } from '../support/processes.ts';
import { dataDir, heldPort, processesNaming } from '../support/start-process.ts';

// The test run's own embedded PostgreSQL (test/support/global-setup.ts) beside a default
// `npm start`, which holds EMBEDDED_PG_PORT's default: the tests take a port of their own.

test("the test run's embedded PostgreSQL takes a free port when another process holds EMBEDDED_PG_PORT", async () => {
  const held = await heldPort();
  const dir = await dataDir();
  const child = spawn(process.execPath, [path.join(ROOT, 'test/support/postgres-child.ts'), dir, 'any'], {
    env: childEnv({ EMBEDDED_PG_PORT: String(held) }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => String(line)),
    exited.then(([code]) => Promise.reject(new Error(`postgres-child exited with ${String(code)}: ${stderr}`))),
  ]);
  const { serverUrl } = JSON.parse(first) as { serverUrl: string };
  expect(Number(new URL(serverUrl).port)).not.toBe(held);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  expect((await client.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  await client.end();
  child.stdin.end();
  expect((await exited)[0]).toBe(0);
  expect(await processesNaming(dir)).toEqual([]);
}, 120_000);
