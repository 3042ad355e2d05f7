import { ApplicationFailure } from '@temporalio/common';
import { runHousekeeping } from '../services/housekeeping.ts';
import type { ActivityDeps } from './deps.ts';

export function housekeepingActivities(deps: ActivityDeps) {
  return {
    /** One housekeeping pass; fails (not retried: the next pass comes in a minute) naming the steps that failed. */
    async housekeepingPass(): Promise<void> {
      const failed = await runHousekeeping(deps);
      if (failed.length > 0)
        throw ApplicationFailure.nonRetryable(`housekeeping steps failed: ${failed.join('; ')}`, 'HousekeepingFailed');
    },
  };
}
