import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import pg from 'pg';
import { expect, inject, test } from 'vitest';
import { createScratchDatabase } from '../../db/scratch.ts';
import { migrationsList } from '../../db/migrations/index.ts';
import { onCleanup } from '../support/cleanup.ts';

// `npm run migrate`, the one-shot job docker-compose.yml runs before the API and the workers.

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function migrate(databaseUrl: string): Promise<string[]> {
  const { stdout, stderr } = await run(process.execPath, ['scripts/migrate.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' },
  });
  const line = `${stdout}${stderr}`.split('\n').find((text) => text.includes('"database migrated"'));
  expect(line, `${stdout}${stderr}`).toBeDefined();
  return (JSON.parse(line!) as { applied: string[] }).applied;
}

test('migrates an empty database to the latest schema, and a second run applies nothing', async () => {
  const scratch = await createScratchDatabase(inject('pgServerUrl'), 'svc_migrate');
  onCleanup(() => scratch.drop());

  expect(await migrate(scratch.url)).toEqual(migrationsList.map((migration) => migration.name));
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('select name from schema_migrations order by id');
    expect(rows.map((row) => row.name)).toEqual(migrationsList.map((migration) => migration.name));
  } finally {
    await client.end();
  }
  expect(await migrate(scratch.url)).toEqual([]);
});
