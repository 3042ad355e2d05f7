import { continueAsNew, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { reprojectionRateSignal } from './definitions.ts';

// A batch re-projects its properties a few to a transaction, heartbeating after each commit: a
// lost worker is noticed within the heartbeat timeout and the batch runs again elsewhere, from the
// cursor the last commit left (the cursor lives in the database, never only here). Retried for as
// long as the database is away.
const { beginCatalogueReprojection, reprojectCatalogueBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface CatalogueReprojectionInput {
  /** The projection revision whose pass this is: the digest of domain/catalogue/projection-digest.ts. */
  revision: string;
  /** Properties re-projected per second at most; `reprojectionRate` changes it while it runs. */
  rate: number;
  /** A new pass from the first property, even over a finished one (an operator's `--again`). */
  again?: boolean;
  /** Batches one run makes before it continues as new (tests use fewer). */
  batchesPerRun?: number;
}

/** The most properties one batch (one activity) re-projects; a batch is about a second of the rate. */
export const REPROJECTION_BATCH_MAX = 100;
export const REPROJECTION_BATCHES_PER_RUN = 200;

/**
 * One pass of a projection revision over the catalogue (workflow id
 * `catalogue-reprojection:<task queue>:<revision's first 12 digits>`), started by a worker start while the revision
 * has not finished, or by an operator (`npm run admin -- catalogue reproject`). Batches of about a
 * second's worth of the rate, each followed by a timer that keeps the pass at or under the rate
 * on average. Answers the properties the pass visited in all.
 */
export async function catalogueReprojection(input: CatalogueReprojectionInput): Promise<number> {
  let rate = input.rate;
  setHandler(reprojectionRateSignal, (next) => {
    if (Number.isFinite(next) && next > 0) rate = next;
  });
  const { batchesPerRun = REPROJECTION_BATCHES_PER_RUN } = input;
  let state = await beginCatalogueReprojection(input.revision, input.again === true);
  if (state.finishedAt !== null) return state.visited;
  for (let batches = 0; batches < batchesPerRun && !workflowInfo().continueAsNewSuggested; batches += 1) {
    const began = Date.now();
    const limit = Math.max(1, Math.min(REPROJECTION_BATCH_MAX, Math.round(rate)));
    const batch = await reprojectCatalogueBatch({ revision: input.revision, limit });
    state = batch.state;
    if (state.finishedAt !== null) return state.visited;
    const due = began + (batch.visited / rate) * 1000;
    if (due > Date.now()) await sleep(due - Date.now());
  }
  // The cursor is the database's: the next run goes on from it.
  return continueAsNew<typeof catalogueReprojection>({ ...input, rate, again: false });
}
