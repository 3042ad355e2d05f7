/**
 * The processes of bench/catalogue-pair.ts, each a program of its own as an operator starts it:
 * the service the way `npm start` runs it (`node scripts/start.ts`: the API and the worker in one
 * process, the embedded Temporal dev server its child), the API process alone as production runs
 * it (`node scripts/api.ts`), and the bare server (bench/bare-catalogue-server.ts). Each started
 * with its environment, its output kept for the error that says why it did not come up, stopped
 * with SIGTERM (SIGKILL after a grace), and its CPU read from /proc/<pid>/stat.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import https from 'node:https';

/** How long a process may take to answer its health check after it was started. */
const START_TIMEOUT_MS = 120_000;
/** How long a process may take to stop after SIGTERM before it is killed. */
const STOP_GRACE_MS = 30_000;
/** Linux counts a process's CPU in ticks of 1/100 s. */
const TICK_MS = 1000 / 100;

export interface BenchProcess {
  pid: number;
  url: string;
  /** The process's own CPU so far, in ms (its children not counted); null where /proc cannot tell. */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

/** The CPU a process has used so far, in ms: user and system, from /proc (Linux). */
export function processCpuMs(pid: number): number | null {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** GET `url` until it answers 200 (the certificate trusted by `ca`), or the child ends or times out. */
async function waitUntilAnswering(url: string, ca: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the process exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
    const status = await new Promise<number>((resolve) => {
      https
        .get(url, { ca, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', () => resolve(0));
    });
    if (status === 200) return;
    if (performance.now() > deadline) throw new Error(`no answer from ${url} in time:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Starts `node <program>` with `env` over this process's (undefined: unset), waits until
 * `healthUrl` answers 200, or for `urlFromLine` to find the process's URL in a line it prints.
 * With `logFile`, its stdout and stderr go to that file, as a log collector would take them: a
 * pipe read by this process (busy with the clients) would stall a server that logs every request
 * whenever the pipe is full. Else they are piped here. Either way the last 64 KB are kept for the
 * error of a process that does not come up.
 */
export async function startProcess(
  program: string,
  env: Record<string, string | undefined>,
  ready: { ca: string } & ({ healthUrl: string; url: string } | { urlFromLine: (line: string) => string | null }),
  options: { nodeArgs?: readonly string[]; logFile?: string } = {},
): Promise<BenchProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env))
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  const log = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), program], {
    env: childEnv,
    stdio: ['ignore', log ?? 'pipe', log ?? 'pipe'],
  });
  if (log !== undefined) closeSync(log);
  let piped = '';
  const output = () => (options.logFile === undefined ? piped : readFileSync(options.logFile, 'utf8').slice(-65_536));
  let announced: ((url: string) => void) | undefined;
  const found = new Promise<string>((resolve) => (announced = resolve));
  const keep = (chunk: Buffer) => {
    piped = (piped + chunk.toString('utf8')).slice(-65_536);
    if ('urlFromLine' in ready)
      for (const line of chunk.toString('utf8').split('\n')) {
        const url = ready.urlFromLine(line);
        if (url) announced?.(url);
      }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    let url: string;
    if ('healthUrl' in ready) {
      await waitUntilAnswering(ready.healthUrl, ready.ca, child, output);
      url = ready.url;
    } else {
      const exited = once(child, 'exit').then(() => {
        throw new Error(`${program} exited before it listened:\n${output()}`);
      });
      url = await Promise.race([found, exited]);
    }
    return { pid: child.pid!, url, cpuMs: () => processCpuMs(child.pid!), stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/**
 * Waits until `process` is quiet: its CPU over a window of `windowMs` below `quietMs` (a freshly
 * started worker runs its start-up work, a catch-up workflow per property among it, for a minute
 * or more); at most `maxMs`. Answers the seconds it waited and whether it settled.
 */
export async function settle(
  process: BenchProcess,
  options: { windowMs: number; quietMs: number; maxMs: number },
): Promise<{ seconds: number; settled: boolean }> {
  const started = performance.now();
  for (;;) {
    const before = process.cpuMs();
    await new Promise((resolve) => setTimeout(resolve, options.windowMs));
    const after = process.cpuMs();
    const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
    if (before === null || after === null || after - before < options.quietMs) return { seconds, settled: true };
    if (performance.now() - started > options.maxMs) return { seconds, settled: false };
  }
}
