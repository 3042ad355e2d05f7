import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { ownerConnectKeysChangedSignal } from './definitions.ts';
import { SA_STATE } from './search-attributes.ts';

// One short transaction; retried for as long as the database is away (the set stays valid
// meanwhile: a late switch only lets the active key sign longer).
const { advanceOwnerConnectKeys } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface OwnerConnectKeyRotationInput {
  /** Days between two switches (OWNER_CONNECT_KEY_ROTATION_DAYS); the worker's signal may change it. */
  rotationDays: number;
  /** Wakes of one run before it continues as new (tests use fewer). */
  wakesPerRun?: number;
}

/** Wakes of one run before it continues as new, keeping its history short. */
export const WAKES_PER_RUN = 50;

/**
 * The owner-connect signing keys of a deployment (`owner-connect-keys:<task queue>`), one
 * long-running workflow: at each wake it has the activity apply what the schedule holds due at
 * the instant it woke for (publish the next key, switch to it 24 h later, destroy the retired
 * key's private part 24 h after that) and sleeps until the next step falls due, or until a signal
 * (an operator's early rotation, a worker start with a new period) makes it plan again. The state
 * lives in the database, so the workflow carries nothing but the period.
 */
export async function ownerConnectKeyRotation(input: OwnerConnectKeyRotationInput): Promise<void> {
  let { rotationDays } = input;
  let changed = false;
  setHandler(ownerConnectKeysChangedSignal, (update) => {
    if (update) rotationDays = update.rotationDays;
    changed = true;
  });
  if (workflowInfo().typedSearchAttributes.get(SA_STATE) !== 'rotating')
    upsertSearchAttributes([{ key: SA_STATE, value: 'rotating' }]);
  for (
    let wakes = 0;
    wakes < (input.wakesPerRun ?? WAKES_PER_RUN) && !workflowInfo().continueAsNewSuggested;
    wakes += 1
  ) {
    changed = false;
    const { nextAtMs } = await advanceOwnerConnectKeys(Date.now(), rotationDays);
    const wait = nextAtMs - Date.now();
    if (wait > 0) await condition(() => changed, wait);
  }
  await continueAsNew<typeof ownerConnectKeyRotation>({ ...input, rotationDays });
}
