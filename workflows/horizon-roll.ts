import { continueAsNew, proxyActivities, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { nextLocalMidnight } from '../domain/availability/zones.ts';
import { SA_STATE } from './search-attributes.ts';

// A zone's roll commits its properties in batches and heartbeats after each: a lost worker is
// noticed within a minute, not at the end of the roll's 5 minutes, and the retry goes on after the
// last batch heartbeat. Retried for as long as the database is away (the next midnight's roll
// would catch up anyway). A replay compares an activity's type and id, not its options, so the
// histories of running rolls replay unchanged (test/workflows/replay.test.ts).
const { rollHorizon } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface HorizonRollInput {
  /** IANA zone, e.g. `Europe/Bucharest`. */
  zone: string;
  /** Days one run rolls before it continues as new (tests use fewer). */
  rollsPerRun?: number;
}

/** Days rolled by one run before it continues as new, keeping its history short. */
export const ROLLS_PER_RUN = 30;

/**
 * The availability horizon of one zone (workflow id `horizon-roll:<zone>`), standing in for a
 * schedule at the zone's local midnight: rolls at once when started (a zone that first appears
 * is rolled straight away), then at each local midnight, computed with the zone's own rules so a
 * daylight-saving day lasts 23 or 25 hours. The roll is for the instant the workflow woke at; when
 * a roll finishes after the next midnight (a long outage), the next day is rolled without waiting.
 */
export async function horizonRoll(input: HorizonRollInput): Promise<void> {
  const { zone, rollsPerRun = ROLLS_PER_RUN } = input;
  if (workflowInfo().typedSearchAttributes.get(SA_STATE) !== 'rolling')
    upsertSearchAttributes([{ key: SA_STATE, value: 'rolling' }]);
  for (let rolls = 0; rolls < rollsPerRun && !workflowInfo().continueAsNewSuggested; rolls += 1) {
    const wokeAt = Date.now();
    await rollHorizon(zone, wokeAt);
    const wait = nextLocalMidnight(wokeAt, zone) - Date.now();
    // Not positive: the next local day began while this one rolled, and is rolled now.
    if (wait > 0) await sleep(wait);
  }
  await continueAsNew<typeof horizonRoll>(input);
}
