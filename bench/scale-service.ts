/**
 * The service as `npm start` runs it (scripts/start.ts: the worker, then the API, in one process),
 * spawned by `bench:scale` against a size's database and a Temporal dev server of the run's own,
 * and the time from its spawn to the first request it serves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort } from '../infra/ports.ts';
import { cpuMs } from './push-support.ts';

const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
/** How often the start is asked whether it serves. */
const PROBE_EVERY_MS = 50;
/** How long a stop may take before the process is killed. */
const STOP_GRACE_MS = 30_000;

export interface ServiceOptions {
  databaseUrl: string;
  temporalAddress: string;
  /** The service's DATA_DIR: its TLS certificate is made there once, and the bench trusts it. */
  dataDir: string;
  /** Variables over this process's environment (less OTEL_*). */
  env: Record<string, string>;
  /** Its stdout and stderr, appended. */
  logFile: string;
  /** Whether a request to `origin` is served: the first time it says so ends the start. */
  serves: (origin: string) => Promise<boolean>;
  timeoutMs: number;
}

export interface RunningService {
  origin: string;
  pid: number;
  /** From the spawn to the first request served, in milliseconds; null when it served none in time. */
  startupMs: number | null;
  stop: () => Promise<void>;
}

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('OTEL_')) env[name] = value;
  return { ...env, ...extra };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** Spawns `node scripts/start.ts` and waits until it serves (or `timeoutMs` passes, or it exits). */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const port = await freeLoopbackPort();
  const origin = `https://127.0.0.1:${port}`;
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const spawned = performance.now();
  const child = spawn(process.execPath, ['scripts/start.ts'], {
    cwd: ROOT,
    env: environment({
      NODE_ENV: 'development',
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: options.temporalAddress,
      DATA_DIR: options.dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      HTTP_PORT: '0',
      METRICS_PORT: 'off',
      TEMPORAL_METRICS_PORT: 'off',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`the service exited (${signal ?? `code ${code}`}) before it served`)),
  );
  const stop = async () => {
    await stopChild(child);
    log.end();
  };
  let startupMs: number | null = null;
  const deadline = spawned + options.timeoutMs;
  try {
    while (performance.now() < deadline) {
      const served = await Promise.race([options.serves(origin).catch(() => false), exited]);
      if (typeof served === 'string') throw new Error(`${served}; its output: ${options.logFile}`);
      if (served) {
        startupMs = performance.now() - spawned;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, pid: child.pid!, startupMs, stop };
}

/** How long the service keeps a core this busy at most once its start-up work is done. */
const QUIET_SHARE = 0.1;
const QUIET_WINDOW_MS = 3_000;

/**
 * Waits until the process `pid` is quiet: under a tenth of a core over three seconds, once what a
 * start leaves the worker to do beside the service (starting durable processes, catching up) is
 * done, so that the cases measure the service as it runs, not its first minutes. Answers how long
 * it waited; null when it was still busy after `timeoutMs`.
 */
export async function untilQuiet(pid: number, timeoutMs: number): Promise<number | null> {
  const started = performance.now();
  let before = cpuMs(pid);
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const now = cpuMs(pid);
    if (now - before < QUIET_SHARE * QUIET_WINDOW_MS) return performance.now() - started;
    before = now;
  }
  return null;
}

/** One GET with a bearer token: whether it answered 200 (the start's probe). */
export function answers200(agent: https.Agent, route: string, token: string) {
  return (origin: string) =>
    new Promise<boolean>((resolve) => {
      const req = https.get(new URL(route, origin), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.setTimeout(5_000, () => req.destroy());
      req.on('error', () => resolve(false));
    });
}
