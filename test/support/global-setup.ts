import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestProject } from 'vitest/node';
import { createScratchDatabase } from '../../db/scratch.ts';
import { openDatabase } from '../../db/orm.ts';
import { startDevServer } from '../../infra/embedded-temporal.ts';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';
import { BED_INSTANT } from './clock.ts';
import { daysUpTo } from './partitions.ts';

const DAY_MS = 86_400_000;

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
    templateDatabase: string;
    temporalAddress: string;
  }
}

/**
 * Once per run: a PostgreSQL server (DATABASE_URL's, else an embedded one in a temporary
 * directory), a template database built from the migrations, and a Temporal dev server for
 * end-to-end tests. Each test file clones its own database from the template.
 */
export default async function setup(project: TestProject) {
  const stops: (() => Promise<void>)[] = [];
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-test-pg-'));
    // Run as root, the cluster belongs to a `postgres` system user, which must traverse this directory.
    await chmod(dir, 0o755);
    const pg = await startPostgresChild(dir);
    serverUrl = pg.serverUrl;
    stops.push(async () => {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    });
  }
  const template = await createScratchDatabase(serverUrl, 'svc_test_template');
  stops.unshift(template.drop);
  const orm = await openDatabase(template.url);
  // The migrations partitioned the log, deliveries and attempts by day around now; test beds
  // start at a fixed instant, and tests move their clocks weeks on from there: those days too.
  const bed = new Date(BED_INSTANT).getTime();
  await daysUpTo(orm, new Date(bed + 45 * DAY_MS), new Date(bed - 40 * DAY_MS));
  await orm.close();

  const temporal = await startDevServer({ searchAttributes: SEARCH_ATTRIBUTES, port: undefined });
  stops.unshift(temporal.stop);

  project.provide('pgServerUrl', serverUrl);
  project.provide('templateDatabase', new URL(template.url).pathname.slice(1));
  project.provide('temporalAddress', temporal.address);

  // A teardown that fails fails the run: every step still runs, then the failures are thrown.
  return async () => {
    const failures: unknown[] = [];
    for (const stop of stops) await stop().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw new AggregateError(failures, 'global teardown failed');
  };
}

/**
 * The embedded PostgreSQL in a child process (test/support/postgres-child.ts says why); exported
 * for test/app/test-run-ports.test.ts, which starts it as the run does.
 */
export async function startPostgresChild(dir: string): Promise<{ serverUrl: string; stop: () => Promise<void> }> {
  // On a port of the system's choosing: a default `npm start` beside the tests holds the default one.
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'postgres-child.ts'), dir, 'any'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    once(lines, 'line'),
    exited.then(([code]) => Promise.reject(new Error(`embedded PostgreSQL exited with ${String(code)}`))),
  ]);
  lines.close();
  const { serverUrl } = JSON.parse(String(first[0])) as { serverUrl: string };
  return {
    serverUrl,
    stop: async () => {
      child.stdin.end();
      const [code] = await exited;
      if (code !== 0) throw new Error(`embedded PostgreSQL stopped with ${String(code)}`);
    },
  };
}
