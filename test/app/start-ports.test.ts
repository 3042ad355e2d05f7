import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { freshDatabase } from '../support/database.ts';
import { runNode } from '../support/processes.ts';
import { freePort, heldPort, hold, portIsFree, processesNaming, runStart, startEnv } from '../support/start-process.ts';

// Every port `npm start` binds is refused, when another process holds it, in one line naming the
// port and the variable that moves it; and the embedded Temporal never attaches to a Temporal it
// did not start.

const refusal = (port: number, what: string, variable: string) =>
  `start: port ${port} for ${what} is already in use by another process; stop it or set ${variable} to a free port`;

/** The ports `npm start` binds, what it calls each, and whether the embedded PostgreSQL is in play. */
const PORTS = [
  { variable: 'EMBEDDED_PG_PORT', what: 'the embedded PostgreSQL', embeddedPostgres: true },
  { variable: 'EMBEDDED_TEMPORAL_PORT', what: 'the embedded Temporal', embeddedPostgres: false },
  { variable: 'EMBEDDED_TEMPORAL_UI_PORT', what: 'the Temporal UI', embeddedPostgres: false },
  { variable: 'PORT', what: 'the API', embeddedPostgres: false },
  { variable: 'HTTP_PORT', what: 'plain HTTP', embeddedPostgres: false },
  { variable: 'INTERNAL_PORT', what: 'the platform interface', embeddedPostgres: false },
  { variable: 'METRICS_PORT', what: 'the metrics', embeddedPostgres: false },
  { variable: 'TEMPORAL_METRICS_PORT', what: "the Temporal worker's metrics", embeddedPostgres: false },
];

describe('npm start with a port held by another process', () => {
  test.each(PORTS)(
    'refuses $variable in one line naming the port and the variable, and exits with 1',
    async ({ variable, what, embeddedPostgres }) => {
      const port = await heldPort();
      const env = await startEnv({
        DATABASE_URL: embeddedPostgres ? undefined : (await freshDatabase()).url,
        [variable]: String(port),
      });
      const result = await runNode('scripts/start.ts', [], env);
      expect(result.stderr.trim().split('\n')).toEqual([refusal(port, what, variable)]);
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain('is up');
      expect(await processesNaming(env.DATA_DIR!)).toEqual([]);
    },
  );

  test('refuses two variables that name one port, in one line naming both', async () => {
    const port = await freePort();
    const env = await startEnv({
      DATABASE_URL: (await freshDatabase()).url,
      PORT: String(port),
      METRICS_PORT: String(port),
    });
    const result = await runNode('scripts/start.ts', [], env);
    expect(result.stderr.trim().split('\n')).toEqual([
      `start: PORT and METRICS_PORT both name port ${port}; set one of them to another port`,
    ]);
    expect(result.code).toBe(1);
  });

  test('a port taken after the check, while the embedded servers start, is refused the same way and they are stopped', async () => {
    const port = await freePort();
    const env = await startEnv({
      DATABASE_URL: undefined,
      PORT: String(port),
    });
    const start = runStart(env);
    // The API binds last, seconds after the embedded PostgreSQL is up: the port is taken meanwhile.
    await start.printed('embedded PostgreSQL at');
    await hold(port);
    const exit = await start.exit(120_000);
    expect(start.output().stderr.trim().split('\n')).toEqual([refusal(port, 'the API', 'PORT')]);
    expect(exit.code).toBe(1);
    expect(await processesNaming(env.DATA_DIR!)).toEqual([]);
    for (const variable of ['EMBEDDED_PG_PORT', 'EMBEDDED_TEMPORAL_PORT', 'EMBEDDED_TEMPORAL_UI_PORT'])
      expect(await portIsFree(Number(env[variable])), variable).toBe(true);
  }, 180_000);
});

describe('npm start with embedded Temporal', () => {
  test('starts its Temporal on EMBEDDED_TEMPORAL_PORT and its UI on EMBEDDED_TEMPORAL_UI_PORT', async () => {
    const port = await freePort();
    const uiPort = await freePort();
    const env = await startEnv({
      DATABASE_URL: (await freshDatabase()).url,
      EMBEDDED_TEMPORAL_PORT: String(port),
      EMBEDDED_TEMPORAL_UI_PORT: String(uiPort),
    });
    const start = runStart(env);
    await start.printed('Ctrl-C stops everything.');
    expect(start.output().stdout).toContain(`Temporal UI  http://localhost:${uiPort}`);
    const runtime = JSON.parse(await readFile(path.join(env.DATA_DIR!, 'runtime.json'), 'utf8')) as {
      temporalAddress: string;
    };
    expect(runtime.temporalAddress).toMatch(new RegExp(`:${port}$`));
    start.terminate();
    expect(await start.exit()).toEqual({ code: 0, signal: null });
  }, 120_000);
});
