import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

// A failed pass is not retried: the schedule starts the next one a minute later.
const { housekeepingPass } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 1 },
});

/**
 * One housekeeping pass of the deployment (retention, re-sealing: services/housekeeping.ts),
 * started every minute by the schedule `housekeeping:<task queue>`, which skips a start while the
 * previous pass still runs: one pass at a time for the whole deployment.
 */
export async function housekeeping(): Promise<void> {
  await housekeepingPass();
}
