// Pieces of `npm run bench:push`: the verifying receiver, CPU readings from /proc, child
// processes, and figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { Webhook } from 'standardwebhooks';

export interface Arrival {
  id: string;
  path: string;
  at: number;
}

/**
 * An HTTPS receiver on this machine with its own self-signed certificate. A path given a secret
 * verifies every request with the Standard Webhooks library (failures are counted); a path
 * given a delay answers after it; a path told to fail answers its next requests 503.
 */
export async function startReceiver() {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
  });
  const caFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'svc-bench-push-')), 'receiver.crt');
  await writeFile(caFile, pems.cert);
  const secrets = new Map<string, Webhook>();
  const delays = new Map<string, number>();
  const failures = new Map<string, number>();
  const arrivals: Arrival[] = [];
  let unverified = 0;
  let onArrival: ((arrival: Arrival) => void) | undefined;
  const server = https.createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const route = req.url ?? '/';
      const webhook = secrets.get(route);
      const body = Buffer.concat(chunks).toString('utf8');
      if (webhook) {
        try {
          webhook.verify(body, req.headers as Record<string, string>);
        } catch {
          unverified += 1;
        }
      }
      const failing = failures.get(route) ?? 0;
      if (failing > 0) failures.set(route, failing - 1);
      const answer = () => {
        res.statusCode = failing > 0 ? 503 : 204;
        res.end();
        const arrival = { id: String(req.headers['webhook-id']), path: route, at };
        arrivals.push(arrival);
        onArrival?.(arrival);
      };
      const delay = delays.get(route);
      if (delay) setTimeout(answer, delay);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  return {
    caFile,
    origin,
    arrivals,
    unverified: () => unverified,
    verifyWith: (route: string, secret: string) => secrets.set(route, new Webhook(secret)),
    delay: (route: string, ms: number) => delays.set(route, ms),
    failNext: (route: string, count: number) => failures.set(route, count),
    onArrival: (listener: ((arrival: Arrival) => void) | undefined) => (onArrival = listener),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Waits (bounded) until `count` arrivals pass `filter`. */
export async function arrivalsOf(
  receiver: Receiver,
  filter: (a: Arrival) => boolean,
  count: number,
  timeoutMs: number,
): Promise<Arrival[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = receiver.arrivals.filter(filter);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${found.length} of ${count} deliveries arrived in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const TICK_MS = 1000 / 100; // USER_HZ

/** User + system CPU of a process so far, in ms (/proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU the whole machine has spent so far, every core and process (the bench, PostgreSQL and the
 * receiver included), in ms (/proc/stat: all but idle and I/O wait).
 */
export function machineCpuMs(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const ticks = fields.slice(0, 8).map(Number);
  const idle = ticks[3]! + ticks[4]!;
  return (ticks.reduce((sum, t) => sum + t, 0) - idle) * TICK_MS;
}

/** Of what the machine's cores could have spent from `first` to `last`, the share they spent, in %. */
function machineBusyPercent(first: { at: number; machine: number }, last: { at: number; machine: number }): number {
  return round((100 * (last.machine - first.machine)) / ((last.at - first.at) * os.availableParallelism()));
}

/** The process whose command line contains `needle` (the dev server, found by its database file). */
export function pidWith(needle: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no process with ${needle} in its command line`);
}

/**
 * Starts a Node child on this repository's sources; resolves once it printed `ready` (on stdout or
 * stderr). `spawned` gets the child at once: a worker delivers before it prints `ready`.
 */
export async function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: string,
  spawned?: (child: ChildProcess) => void,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned?.(child);
  child.stderr.pipe(process.stderr);
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`${script} not ready in 300 s`)), 300_000);
      const look = (chunk: Buffer) => {
        seen = (seen + chunk.toString('utf8')).slice(-10_000);
        if (seen.includes(ready)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${script} exited with ${code} before it was ready`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  child.stdout.resume();
  return child;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `work` on every item, at most `limit` at a time. */
export async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export function percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(1));
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** The CPU spent so far by the workers (summed), the server and the whole machine, at one instant. */
export interface CpuReading {
  at: number;
  worker: number;
  server: number;
  machine: number;
}

export function cpuReading(pids: { workers: number[]; server: number }): CpuReading {
  const worker = pids.workers.reduce((sum, pid) => sum + cpuMs(pid), 0);
  return { at: performance.now(), worker, server: cpuMs(pids.server), machine: machineCpuMs() };
}

/** What `count` deliveries (or workflows) cost each between two readings, and how busy the machine was. */
export function cpuPerDelivery(first: CpuReading, last: CpuReading, count: number) {
  return {
    workerCpuMsPerDelivery: round((last.worker - first.worker) / count),
    serverCpuMsPerDelivery: round((last.server - first.server) / count),
    machineCpuMsPerDelivery: round((last.machine - first.machine) / count),
    machineBusyPercent: machineBusyPercent(first, last),
  };
}

/**
 * A drain: deliveries per second from the first arrival to the last, and the CPU the workers (all
 * of them together), the server and the whole machine spent per delivery over that span, with
 * how busy the machine's cores were (readings taken at the first and last arrival).
 */
export async function measureDrain(
  receiver: Receiver,
  options: {
    filter: (a: Arrival) => boolean;
    count: number;
    pids: () => { workers: number[]; server: number };
    timeoutMs: number;
    start: () => Promise<void>;
  },
) {
  const readings: CpuReading[] = [];
  const read = () => cpuReading(options.pids());
  let seen = 0;
  receiver.onArrival((arrival) => {
    if (!options.filter(arrival)) return;
    seen += 1;
    if (seen === 1 || seen === options.count) readings.push(read());
  });
  await options.start();
  const arrived = await arrivalsOf(receiver, options.filter, options.count, options.timeoutMs);
  receiver.onArrival(undefined);
  const [first, last] = readings as [(typeof readings)[0], (typeof readings)[0]];
  const span = (last.at - first.at) / 1000;
  const n = options.count - 1;
  return {
    deliveries: arrived.length,
    perSecond: round(n / span),
    ...cpuPerDelivery(first, last, n),
  };
}
