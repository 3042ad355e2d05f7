import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

// A batch reads its properties by primary key and starts the missing workflows of the dated ones,
// heartbeating as the starts go: a lost worker is noticed within the heartbeat timeout and the
// batch runs again elsewhere (its starts are idempotent). Retried for as long as the database or
// Temporal is away.
const { beginCertificateExpiryCatchUp, catchUpCertificateExpiries } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface CertificateExpiryCatchUpInput {
  /** The last property visited (by id): the pass goes on after it. Absent or null: from the first. */
  after?: string | null;
  /** Properties the catalogue held when the pass began; absent: the pass begins now. */
  total?: number;
  /** Properties the pass has visited so far. */
  visited?: number;
  /** Properties one batch reads (tests use fewer). */
  batchSize?: number;
  /** Batches one run makes before it continues as new (tests use fewer). */
  batchesPerRun?: number;
}

export const CATCH_UP_BATCH = 500;
export const CATCH_UP_BATCHES_PER_RUN = 100;

/**
 * One pass over the catalogue (workflow id `certificate-expiry-catch-up:<task queue>`), started
 * by each worker start unless one is under way: starts the certificate-expiry workflow of every
 * property that carries an end date still ahead and has none running (one whose write could not
 * reach Temporal, or written before this deployment tracked expiries). A running one is left as it
 * is. It walks the properties by id, a batch an activity, the cursor kept in the workflow, so a
 * worker lost mid-pass costs one batch again, never the pass; and it continues as new with the
 * cursor. Answers the properties visited.
 */
export async function certificateExpiryCatchUp(input: CertificateExpiryCatchUpInput = {}): Promise<number> {
  const { batchSize = CATCH_UP_BATCH, batchesPerRun = CATCH_UP_BATCHES_PER_RUN } = input;
  let after = input.after ?? null;
  let visited = input.visited ?? 0;
  const total = input.total ?? (await beginCertificateExpiryCatchUp());
  for (let batches = 0; batches < batchesPerRun && !workflowInfo().continueAsNewSuggested; batches += 1) {
    const batch = await catchUpCertificateExpiries({ after, limit: batchSize, nowMs: Date.now(), total, visited });
    visited += batch.visited;
    if (batch.last === null) return visited;
    after = batch.last;
  }
  return continueAsNew<typeof certificateExpiryCatchUp>({ ...input, after, total, visited });
}
