import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Connection } from '@temporalio/client';
import { freeLoopbackPort } from '../../infra/ports.ts';
import { temporalExecutable } from '../../infra/temporal-binaries.ts';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';

/**
 * The chaos run's own PostgreSQL and Temporal dev server, on free ports with their data in the
 * run's directory, so they can be killed and started again on the same port and data while the
 * service's processes run (the machine's shared servers are never touched).
 */

export const ROOT = path.resolve(import.meta.dirname, '../..');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A TCP port nobody listens on right now (the kernel's pick, released at once). */
export const freePort = freeLoopbackPort;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exitOf(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  const timer = sleep(timeoutMs).then(() => false);
  return Promise.race([once(child, 'exit').then(() => true), timer]);
}

export type StopMode = 'clean' | 'kill';

export interface ChaosPostgres {
  url: string;
  port: number;
  /** Stops the server (fast shutdown, or SIGKILL of the postmaster) and starts it again on the same port and data. */
  restart: (mode: StopMode) => Promise<void>;
  close: () => Promise<void>;
}

/** The embedded PostgreSQL (test/support/postgres-child.ts in a process of its own). */
export async function startChaosPostgres(dir: string, log: (line: string) => void): Promise<ChaosPostgres> {
  await mkdir(dir, { recursive: true });
  // Run as root, the cluster belongs to a `postgres` system user, which must traverse this directory.
  await chmod(dir, 0o755);
  const port = await freePort();
  const pidFile = path.join(dir, 'postgres', 'postmaster.pid');
  const output = createWriteStream(path.join(dir, 'postgres.log'), { flags: 'a' });
  let child: ChildProcess | undefined;
  let url = '';

  const start = async () => {
    // After a SIGKILL the old backends leave a moment later; the new postmaster refuses to start
    // while they still hold the shared memory, so the start is tried a few times.
    for (let attempt = 1; ; attempt += 1) {
      const started = spawn(process.execPath, [path.join(ROOT, 'test/support/postgres-child.ts'), dir], {
        cwd: ROOT,
        env: { ...process.env, EMBEDDED_PG_PORT: String(port) },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      started.stderr.pipe(output, { end: false });
      const lines = createInterface({ input: started.stdout });
      const first = await Promise.race([
        once(lines, 'line').then(([line]) => String(line)),
        once(started, 'exit').then(() => undefined),
        sleep(60_000).then(() => undefined),
      ]);
      lines.close();
      if (first) {
        child = started;
        url = (JSON.parse(first) as { serverUrl: string }).serverUrl;
        return;
      }
      started.kill('SIGKILL');
      if (attempt >= 10) throw new Error(`PostgreSQL did not start on port ${port} (see ${dir}/postgres.log)`);
      log(`postgres: start attempt ${attempt} failed; trying again`);
      await sleep(1000);
    }
  };

  const postmaster = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined);

  const stop = async (mode: StopMode) => {
    const pid = postmaster();
    if (mode === 'kill') {
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      child?.kill('SIGKILL');
    } else {
      child?.stdin?.end();
      if (child && !(await exitOf(child, 30_000))) child.kill('SIGKILL');
      if (pid && alive(pid)) process.kill(pid, 'SIGTERM');
    }
    for (let i = 0; pid && alive(pid) && i < 300; i += 1) await sleep(100);
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    child = undefined;
  };

  await start();
  return {
    get url() {
      return url;
    },
    port,
    restart: async (mode) => {
      await stop(mode);
      await start();
    },
    close: async () => {
      await stop('clean');
      output.end();
    },
  };
}

const TYPE_NAMES: Record<string, string> = {
  KEYWORD: 'Keyword',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

export interface ChaosTemporal {
  address: string;
  /** Stops the dev server (SIGTERM, or SIGKILL) and starts it again on the same port and SQLite file. */
  restart: (mode: StopMode) => Promise<void>;
  close: () => Promise<void>;
}

/** `temporal server start-dev` with a file-backed store, so a restart keeps every workflow and timer. */
export async function startChaosTemporal(dir: string, log: (line: string) => void): Promise<ChaosTemporal> {
  const executable = temporalExecutable('cli');
  if (!executable) throw new Error('the Temporal CLI is needed: set TEMPORAL_CLI or put `temporal` on PATH');
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const output = createWriteStream(path.join(dir, 'temporal.log'), { flags: 'a' });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--headless',
    '--db-filename',
    path.join(dir, 'temporal.sqlite'),
    '--log-level',
    'error',
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${TYPE_NAMES[key.type]}`]),
  ];
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(executable.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(output, { end: false });
    child.stderr!.pipe(output, { end: false });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`the Temporal dev server exited with ${child.exitCode} (see ${dir}/temporal.log)`);
      try {
        const connection = await Connection.connect({ address, connectTimeout: 2000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          return;
        } finally {
          await connection.close();
        }
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`the Temporal dev server did not answer on ${address}`, { cause: error });
        await sleep(250);
      }
    }
  };

  const stop = async (mode: StopMode) => {
    if (!child) return;
    child.kill(mode === 'kill' ? 'SIGKILL' : 'SIGTERM');
    if (!(await exitOf(child, 30_000))) child.kill('SIGKILL');
    await exitOf(child, 5000);
    child = undefined;
  };

  await start();
  log(`temporal: dev server on ${address}`);
  return {
    address,
    restart: async (mode) => {
      await stop(mode);
      await start();
    },
    close: async () => {
      await stop('clean');
      output.end();
    },
  };
}
