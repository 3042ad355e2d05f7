import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { freshDatabase } from '../support/database.ts';
import { runNode } from '../support/processes.ts';
import { pidNaming, processesNaming, runStart, startEnv } from '../support/start-process.ts';

// The embedded servers `npm start` runs get the service's environment less its tracing settings,
// and one that fails to start is reported with its own words and exit code.

const environOf = async (pid: number) =>
  (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').filter((entry) => entry !== '');

describe("the service's OTEL_* settings", () => {
  test('with OTEL_TRACES_EXPORTER=console (the development setting) npm start comes up; its Temporal gets no OTEL_* variable', async () => {
    const env = await startEnv({
      DATABASE_URL: (await freshDatabase()).url,
      OTEL_TRACES_EXPORTER: 'console',
      OTEL_SERVICE_NAME: 'distribution-start-test',
    });
    const start = runStart(env);
    await start.printed('Ctrl-C stops everything.');
    expect(start.output().stdout).toContain('tracing      on (OTEL_* variables)');
    expect(await environOf(start.pid)).toContain('OTEL_TRACES_EXPORTER=console');
    const temporal = await pidNaming(`${env.DATA_DIR}/temporal.sqlite`);
    expect((await environOf(temporal)).filter((entry) => entry.startsWith('OTEL_'))).toEqual([]);
    start.terminate();
    expect(await start.exit()).toEqual({ code: 0, signal: null });
    expect(await processesNaming(env.DATA_DIR!)).toEqual([]);
  }, 120_000);
});

describe('an embedded server that fails to start', () => {
  test('the Temporal dev server is reported with its exit code and its last output, in place of a time-out', async () => {
    const bin = await mkdtemp(path.join(os.tmpdir(), 'svc-fake-temporal-'));
    const cli = path.join(bin, 'temporal');
    await writeFile(
      cli,
      '#!/bin/sh\necho "reading the configuration"\necho "Error: this server cannot start" >&2\nexit 3\n',
    );
    await chmod(cli, 0o755);
    const env = await startEnv({
      DATABASE_URL: (await freshDatabase()).url,
      TEMPORAL_CLI: cli,
    });
    const result = await runNode('scripts/start.ts', [], env);
    expect(result.stderr.trim().split('\n')).toEqual([
      'start: the embedded Temporal exited with code 3 before it was ready; its last output:',
      '  reading the configuration',
      '  Error: this server cannot start',
    ]);
    expect(result.code).toBe(1);
  });

  test('PostgreSQL is reported with its exit code and its own error', async () => {
    const env = await startEnv({
      DATABASE_URL: undefined,
    });
    // A data directory that claims a cluster and holds none (a copy cut short, say).
    const cluster = path.join(env.DATA_DIR!, 'postgres');
    await mkdir(cluster, { mode: 0o755 });
    await writeFile(path.join(cluster, 'PG_VERSION'), '17\n', { mode: 0o644 });
    const result = await runNode('scripts/start.ts', [], env);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('start: the embedded PostgreSQL exited with code 2 before it was ready; its last output:');
    expect(lines.slice(1)).toEqual([
      `  postgres: could not access the server configuration file "${cluster}/postgresql.conf": No such file or directory`,
    ]);
    expect(result.code).toBe(1);
    expect(await processesNaming(env.DATA_DIR!)).toEqual([]);
  });
});
