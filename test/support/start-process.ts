import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '../../infra/ports.ts';
import { onCleanup } from './cleanup.ts';
import { childEnv, ROOT } from './processes.ts';

// `npm start` (scripts/start.ts) as a child of the test, with helpers to see what it left behind.

/** A port held by a listener of the test's own on loopback, until the file's cleanup. */
export async function heldPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Holds `port` on loopback until the returned release. */
export async function hold(port: number): Promise<() => Promise<void>> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, resolve);
  });
  const release = () => new Promise<void>((resolve) => server.close(() => resolve()));
  onCleanup(release);
  return release;
}

/** A port free on loopback now (infra/ports.ts). */
export { freeLoopbackPort as freePort } from '../../infra/ports.ts';

/** True when nothing listens on `port`: a listener of the test's can take it on every address. */
export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ host: '0.0.0.0', port }, () => server.close(() => resolve(true)));
  });
}

/** A data directory of its own; run as root, the embedded cluster's `postgres` user must traverse it. */
export async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-start-'));
  await chmod(dir, 0o755);
  return dir;
}

/**
 * The processes of this machine whose command line (its words joined by spaces) holds `text`: with a
 * data directory, the embedded servers of a start on it (`postgres -D DIR/postgres`,
 * `initdb --pgdata=DIR/postgres.init`, `temporal … --db-filename DIR/temporal.sqlite`).
 */
export async function processesNaming(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    if (cmdline.includes(text)) found.push(`${entry} ${cmdline.slice(0, 160)}`);
  }
  return found;
}

/** The pid of the process whose command line names `text`, once there is one (bounded). */
export async function pidNaming(text: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [first] = await processesNaming(text);
    if (first) return Number(first.split(' ')[0]);
    if (Date.now() > deadline) throw new Error(`no process named ${text} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface StartProcess {
  pid: number;
  output: () => { stdout: string; stderr: string };
  /** Resolves when stdout has shown `text`; rejects if the start exits first. */
  printed: (text: string) => Promise<void>;
  /** The exit, bounded: rejects when the start has not exited within `timeoutMs`. */
  exit: (timeoutMs?: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ctrl-C at a terminal: SIGINT to the whole foreground process group. */
  interrupt: () => void;
  /** `kill PID`: SIGTERM to the process alone. */
  terminate: () => void;
}

/** `node scripts/start.ts` in a process group of its own, as a terminal runs it. */
export function runStart(env: Record<string, string | undefined>): StartProcess {
  const child = spawn(process.execPath, ['scripts/start.ts'], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const watchers: (() => void)[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const watch of watchers) watch();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // Ctrl-C, as at a terminal: the start stops its embedded servers, which run in process
      // groups of their own and would outlive a SIGKILL of the start alone. Killed if it hangs.
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        // the group is gone already
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await exited;
  });
  return {
    pid: child.pid!,
    output: () => ({ stdout, stderr }),
    printed: (text) =>
      new Promise<void>((resolve, reject) => {
        const watch = () => {
          if (stdout.includes(text)) resolve();
        };
        watchers.push(watch);
        watch();
        void exited.then(() => reject(new Error(`npm start exited before printing "${text}":\n${stdout}\n${stderr}`)));
      }),
    exit: (timeoutMs = 60_000) =>
      Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`npm start did not exit within ${timeoutMs} ms:\n${stdout}\n${stderr}`)),
            timeoutMs,
          ).unref(),
        ),
      ]),
    interrupt: () => process.kill(-child.pid!, 'SIGINT'),
    terminate: () => child.kill('SIGTERM'),
  };
}

/**
 * Everything `npm start` needs with its data apart; the listeners not under test on ports the
 * system picks, or off, the embedded servers' on free ones (never the defaults a `npm start`
 * beside the tests holds).
 */
export async function startEnv(extra: Record<string, string | undefined> = {}) {
  return {
    TEMPORAL_ADDRESS: undefined,
    DATA_DIR: await dataDir(),
    EMBEDDED_PG_PORT: String(await freeLoopbackPort()),
    EMBEDDED_TEMPORAL_PORT: String(await freeLoopbackPort()),
    EMBEDDED_TEMPORAL_UI_PORT: String(await freeLoopbackPort()),
    PORT: '0',
    HTTP_PORT: '0',
    INTERNAL_PORT: undefined,
    METRICS_PORT: 'off',
    TEMPORAL_METRICS_PORT: 'off',
    LOG_LEVEL: 'error',
    OTEL_TRACES_EXPORTER: undefined,
    OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
    ...extra,
  } as Record<string, string | undefined>;
}
