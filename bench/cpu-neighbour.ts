/**
 * A CPU-bound neighbour process for a bench (bench/neighbour.ts is its program): started before a
 * section, stopped after it, with the CPU it used over that time, so a reader sees it took a core.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { NeighbourCpu } from './neighbour.ts';

/** How long the neighbour may take to start, or to answer between two of its slices. */
const ANSWER_TIMEOUT_MS = 10_000;

/** What a neighbour used while it ran: its CPU, the wall time, and so the cores it kept busy. */
export interface NeighbourUse {
  cpu_ms: number;
  seconds: number;
  /** CPU over wall time: about 1 when it really took a core, less when the machine starved it. */
  cores_busy: number;
}

export interface Neighbour {
  /** Asks its CPU, then kills it; always kills it, even when it does not answer. */
  stop(): Promise<NeighbourUse>;
}

/** The next message of the child; an error if it exits first or is silent for ANSWER_TIMEOUT_MS. */
function nextMessage(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const settle = (error: Error | null, message?: unknown) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message);
    };
    const onMessage = (message: unknown) => settle(null, message);
    const onExit = (code: number | null) => settle(new Error(`the CPU-bound neighbour exited with ${String(code)}`));
    const timer = setTimeout(() => settle(new Error('the CPU-bound neighbour does not answer')), ANSWER_TIMEOUT_MS);
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Kills the child and waits for it to be gone. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/**
 * Starts bench/neighbour.ts, a child process spinning one core flat out, and resolves once it
 * spins. The caller stops it in a `finally`; should the caller die instead, the child sees its
 * IPC channel close and exits by itself.
 */
export async function startNeighbour(): Promise<Neighbour> {
  const child = fork(new URL('./neighbour.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    if ((await nextMessage(child)) !== 'ready') throw new Error('the CPU-bound neighbour did not start');
  } catch (error) {
    await kill(child);
    throw error;
  }
  const started = performance.now();
  return {
    async stop() {
      try {
        child.send('cpu');
        const { cpuMs } = (await nextMessage(child)) as NeighbourCpu;
        const seconds = (performance.now() - started) / 1000;
        return {
          cpu_ms: Math.round(cpuMs),
          seconds: Number(seconds.toFixed(2)),
          cores_busy: Number((cpuMs / 1000 / seconds).toFixed(2)),
        };
      } finally {
        await kill(child);
      }
    },
  };
}
