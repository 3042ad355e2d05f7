import { asyncLocalStorage } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import * as churn from '../services/sandbox-churn.ts';
import type { ActivityDeps } from './deps.ts';

export type { ChurnBatch, ChurnOutcome } from '../services/sandbox-churn.ts';

/** The failure's `type` when a production worker is asked to churn: the workflow ends with it. */
export const SANDBOX_ONLY_FAILURE = 'SandboxOnly';

export function sandboxChurnActivities(deps: ActivityDeps) {
  return {
    /**
     * One batch of the sandbox churn, in order. It heartbeats after each change; a retry (a worker
     * lost mid-batch) goes on after the last change its heartbeat reported. Refused for good in
     * production: the workflow fails with `SandboxOnly`.
     */
    async applySandboxChurn(batch: churn.ChurnBatch): Promise<churn.ChurnOutcome> {
      const context = asyncLocalStorage.getStore();
      const done = Number(context?.info.heartbeatDetails ?? 0) || 0;
      try {
        return await churn.applySandboxChurn(deps, { ...batch, changes: batch.changes.slice(done) }, (applied) =>
          context?.heartbeat(done + applied),
        );
      } catch (error) {
        if (error instanceof churn.SandboxChurnOnly)
          throw ApplicationFailure.nonRetryable(error.message, SANDBOX_ONLY_FAILURE);
        throw error;
      }
    },
  };
}
