import {
  condition,
  makeContinueAsNewFunc,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { addCounts, churnChanges, type ChurnCounts } from '../domain/sandbox/churn.ts';
import { sandboxChurnRateSignal, sandboxChurnStopSignal } from './definitions.ts';

// A batch is about a second of changes, each its own platform write; it heartbeats after each, so
// a lost worker costs the changes after its last heartbeat once more (each sets absolute values).
// Retried for as long as the database is away; a production worker's refusal is not retried.
const { applySandboxChurn } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SandboxOnly'] },
});

export interface SandboxChurnInput {
  seed: number;
  /** Changes a second at most; `sandboxChurnRate` changes it while it runs. */
  rate: number;
  /** The channels withdrawn properties come back to and created ones go to. */
  channels: string[];
  /** The number of the next change: where a run continued as new, or a stopped churn, goes on. */
  next?: number;
  /** The change number to stop before (a bounded run); absent: until stopped. */
  until?: number;
  /** Changes applied and skipped so far, by kind. */
  applied?: ChurnCounts;
  skipped?: ChurnCounts;
  /** Batches one run makes before it continues as new (tests use fewer). */
  batchesPerRun?: number;
}

/** Where a churn stands: what it answers, and what its memo `progress` shows `sandbox churn status`. */
export interface SandboxChurnProgress {
  seed: number;
  rate: number;
  next: number;
  applied: ChurnCounts;
  skipped: ChurnCounts;
}

/** The most changes one batch (one activity) makes; a batch is about a second of the rate. */
export const CHURN_BATCH_MAX = 100;
export const CHURN_BATCHES_PER_RUN = 500;

/**
 * The sandbox catalogue's churn (workflow id `sandbox-churn:<task queue>`), started by
 * `npm run admin -- sandbox churn start`: change after change, each chosen from the seed and its
 * number (domain/sandbox/churn.ts), in batches of about a second of the rate, each followed by a
 * timer that keeps it at or under the rate on average. Ends at `until`, or when stopped
 * (`sandboxChurnStop`), answering its progress; continues as new with it in the input.
 */
export async function sandboxChurn(input: SandboxChurnInput): Promise<SandboxChurnProgress> {
  let rate = input.rate;
  let stopped = false;
  setHandler(sandboxChurnRateSignal, (next) => {
    if (Number.isFinite(next) && next > 0) rate = next;
  });
  setHandler(sandboxChurnStopSignal, () => {
    stopped = true;
  });
  const { seed, until, batchesPerRun = CHURN_BATCHES_PER_RUN } = input;
  const progress = (): SandboxChurnProgress => ({ seed, rate, next, applied, skipped });
  let next = input.next ?? 0;
  let applied = input.applied ?? {};
  let skipped = input.skipped ?? {};
  const ended = () => stopped || (until !== undefined && next >= until);
  // A batch is the rate times the last batch's time, a second at least: a batch that took longer
  // than its second is followed by a larger one, so the average keeps the rate (up to the maximum).
  let span = 1;
  for (let batches = 0; batches < batchesPerRun && !workflowInfo().continueAsNewSuggested; batches += 1) {
    if (ended()) return progress();
    const began = Date.now();
    const size = Math.max(1, Math.min(CHURN_BATCH_MAX, Math.round(rate * span), (until ?? Infinity) - next));
    const outcome = await applySandboxChurn({ channels: input.channels, changes: churnChanges(seed, next, size) });
    // The batch's own time: a batch that ran past its second (a busy database) sizes the next.
    span = Math.max(1, (Date.now() - began) / 1000);
    next += size;
    applied = addCounts(applied, outcome.applied);
    skipped = addCounts(skipped, outcome.skipped);
    upsertMemo({ progress: progress() });
    const due = began + (size / rate) * 1000;
    if (due > Date.now() && !ended()) await condition(ended, due - Date.now());
  }
  if (ended()) return progress();
  // The memo goes with the new run, so `status` reads the progress before its first batch too.
  return makeContinueAsNewFunc<typeof sandboxChurn>({ memo: { progress: progress() } })({
    ...input,
    rate,
    next,
    applied,
    skipped,
  });
}
