import { spawn, type ChildProcess } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { PortUnavailable, type PortUse } from './ports.ts';

/**
 * The servers a process starts beside itself (the embedded PostgreSQL and Temporal), each in a
 * process group of its own, so that stopping one ends every process it made, and a Ctrl-C at the
 * terminal reaches the service alone, which then stops them in order. Every child is tracked from
 * the moment it is spawned: `stopChildren` ends all of them, whatever the start had reached.
 */

/** How much of a child's output is kept for the report of its failure. */
const TAIL_LINES = 6;
const TAIL_LINE_CHARS = 400;

/**
 * The environment a child server gets: the service's own less its tracing settings. OTEL_* are
 * the service's; the embedded Temporal reads the same names and refuses values it does not know
 * (`OTEL_TRACES_EXPORTER=console`), so they reach a child only when the caller adds them.
 */
function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('OTEL_')) env[name] = value;
  return { ...env, ...extra };
}

/** A child that ended, or never got ready, while it was starting. */
export class ChildFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChildFailed';
  }
}

export interface ServerChildOptions {
  /** Its name in messages: "the embedded Temporal". */
  name: string;
  command: string;
  args: string[];
  /** Added to its environment: this process's, less the OTEL_* settings (see `childEnvironment`). */
  env?: Record<string, string>;
  uid?: number;
  gid?: number;
  /** The ports it binds: an "address already in use" in its output is refused by the port's variable. */
  ports: PortUse[];
  /** What asks it to stop cleanly (PostgreSQL's fast shutdown is SIGINT). */
  stopSignal: NodeJS.Signals;
  /** How long a clean stop may take before the group is killed. */
  stopGraceMs: number;
  /** Once it is ready, what it writes on stderr goes on to this process's stderr (its errors). */
  forwardStderr?: boolean;
}

export interface ServerChild {
  /** Resolves once `probe` answers true; rejects with its own error when the child ends first or `timeoutMs` passes. */
  ready: (probe: () => Promise<boolean>, timeoutMs: number) => Promise<void>;
  /** For a one-shot child: resolves when it exits with 0, rejects with its own error otherwise. */
  done: () => Promise<void>;
  stop: () => Promise<void>;
}

interface Tracked {
  child: ChildProcess;
  stop: () => Promise<void>;
}

const live = new Set<Tracked>();
let closed = false;

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone already
  }
}

/** The last lines a child wrote, each cut to its end (where a wrapped error names its cause). */
function tailOf(output: string): string {
  return stripVTControlCharacters(output)
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .slice(-TAIL_LINES)
    .map((line) => (line.length > TAIL_LINE_CHARS ? `…${line.slice(-TAIL_LINE_CHARS)}` : line))
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * The port of the caller's that a child's "address already in use" is about: the one it names
 * (Temporal: `listen tcp 127.0.0.1:7233: bind: address already in use`), or a child's only port
 * (PostgreSQL names none). A port the caller did not give (one the child picked) is no such port.
 */
function portInUse(output: string, ports: PortUse[]): PortUse | undefined {
  if (!/address already in use/i.test(output)) return undefined;
  const named = /:(\d{1,5}): bind: address already in use/i.exec(output);
  if (named) return ports.find((use) => use.port === Number(named[1]));
  return ports.length === 1 ? ports[0] : undefined;
}

/** Spawns a server child in a process group of its own and tracks it until it exits. */
export function startServerChild(options: ServerChildOptions): ServerChild {
  if (closed) throw new ChildFailed(`${options.name} was not started: the process is stopping`);
  const child = spawn(options.command, options.args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: childEnvironment(options.env),
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16_384);
  };
  let isReady = false;
  child.stdout.on('data', keep);
  child.stderr.on('data', (chunk: Buffer) => {
    keep(chunk);
    if (isReady && options.forwardStderr && !closed) process.stderr.write(chunk);
  });
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      spawnError = error;
      resolve();
    });
  });

  const failure = (what: string): Error => {
    const held = portInUse(output, options.ports);
    if (held) return PortUnavailable.inUse(held);
    if (spawnError) return new ChildFailed(`${options.name} could not be started: ${spawnError.message}`);
    const status = child.signalCode ? `signal ${child.signalCode}` : `code ${String(child.exitCode)}`;
    const tail = tailOf(output);
    return new ChildFailed(
      `${options.name} ${what.replace('$status', status)}${tail ? `; its last output:\n${tail}` : ''}`,
    );
  };

  // One stop at a time: a second signal (SIGTERM to the Temporal CLI) could turn a clean stop into a hard one.
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= stopOnce());
  const stopOnce = async () => {
    if (!spawnError && running(child)) {
      try {
        process.kill(child.pid!, options.stopSignal);
      } catch {
        // ended meanwhile
      }
      const clean = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), options.stopGraceMs).unref()),
      ]);
      if (!clean) {
        killGroup(child, 'SIGKILL');
        await exited;
      }
    }
    live.delete(tracked);
  };
  const tracked: Tracked = { child, stop };
  live.add(tracked);
  void exited.then(() => live.delete(tracked));

  return {
    stop,
    done: async () => {
      await exited;
      if (spawnError || child.exitCode !== 0) throw failure('failed with $status');
    },
    ready: async (probe, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (spawnError || !running(child)) throw failure('exited with $status before it was ready');
        if (await probe().catch(() => false)) {
          isReady = true;
          return;
        }
        if (spawnError || !running(child)) throw failure('exited with $status before it was ready');
        if (Date.now() > deadline) {
          await stop();
          throw failure(`was not ready within ${Math.round(timeoutMs / 1000)} s (stopped)`);
        }
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 100))]);
      }
    },
  };
}

/**
 * Starts no more children, and stops passing on what the running ones write: the process is
 * stopping, and what they say of the work stopping before them (a worker's closed task queue) is
 * not news.
 */
export function closeChildren(): void {
  closed = true;
}

/**
 * Stops every tracked child (each cleanly, then its whole group killed past its grace) and
 * refuses to start any more: a signal that arrives while the start is still under way leaves
 * nothing behind, not even a child the start was about to spawn.
 */
export async function stopChildren(): Promise<void> {
  closed = true;
  await Promise.all([...live].map((tracked) => tracked.stop()));
}

/** Kills every tracked child's group at once (a stop that overran its deadline). */
export function killChildren(): void {
  closed = true;
  for (const { child } of live) if (running(child)) killGroup(child, 'SIGKILL');
}

// Last resort, for an exit that skipped the stops (an uncaught error): no child outlives the process.
process.on('exit', killChildren);
