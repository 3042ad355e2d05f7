import type { HistoryAndWorkflowId } from '@temporalio/common';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { replayOptions } from '../app/worker.ts';

/** Per replay of one history: the elapsed time and the process's CPU, in ms. */
export interface ReplayCost {
  ms: number;
  cpuMs: number;
}

/**
 * Replays each of `histories` `times` times on `bundle`, as a worker of this checkout replays
 * (its spans dropped), and what one replay cost. A replay runs every workflow task of its history
 * again: the CPU a worker spends in its sandbox.
 */
export async function replayCost(
  bundle: WorkflowBundle,
  histories: readonly HistoryAndWorkflowId['history'][],
  times: number,
): Promise<ReplayCost> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const input = Array.from({ length: times }, (_, round) =>
    histories.map((history, i) => ({ workflowId: `bench-${round}-${i}`, history })),
  ).flat();
  for await (const result of Worker.runReplayHistories({ ...replayOptions(), workflowBundle: bundle }, input))
    if (result.error) throw result.error;
  const used = process.cpuUsage(cpu);
  return { ms: (performance.now() - started) / input.length, cpuMs: (used.user + used.system) / 1000 / input.length };
}
