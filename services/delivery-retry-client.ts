import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { retryNowUpdate, retryNowUpdateId, type RetryNowAnswer } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import { POLLER_RECENT_MS, workflowTaskPollers } from './eager-start.ts';
import type { WorkflowScope } from './workflow-scope.ts';

// An operator's `delivery retry` as the workflow client makes it (services/workflow-client.ts).

export type RetryNowOutcome =
  /** The attempt was made: what it did and what comes next. */
  | { answered: RetryNowAnswer }
  /** The delivery refused: not waiting, an attempt under way, or waiting for another attempt. */
  | { refused: string; type: string }
  /** The delivery was cancelled while its attempt was made. */
  | { cancelled: true }
  /** No run of the delivery is running: ended, or gone (terminated, lost with its namespace). */
  | { closed: true }
  /** No answer within the wait: a worker polls (the attempt is under way or queued), or none does. */
  | { unanswered: 'under_way' | 'no_worker' };

export function deliveryRetryClient({ connect, taskQueue }: WorkflowScope) {
  /** Whether a worker polls the task queue's workflow tasks (one that stopped is listed for minutes: not counted). */
  async function workerPolls(client: Client): Promise<boolean> {
    const now = Date.now();
    return (await workflowTaskPollers(client, taskQueue)).some((poller) => now - poller.lastPollMs < POLLER_RECENT_MS);
  }

  return {
    /**
     * Has a delivery waiting for `attempt` make it now (its workflow's `retryNow` Update, named by
     * the attempt: a second request for the same attempt joins the first and gets the same
     * answer), and waits up to `waitMs` for what it did.
     */
    async retryWebhookDelivery(
      endpointId: string,
      eventId: string,
      attempt: number,
      waitMs: number,
    ): Promise<RetryNowOutcome> {
      const client = await connect();
      const handle = client.workflow.getHandle(workflowIds.webhookDelivery(endpointId, eventId));
      try {
        const answer = await client.withDeadline(Date.now() + waitMs, () =>
          handle.executeUpdate(retryNowUpdate, { args: [{ attempt }], updateId: retryNowUpdateId(attempt) }),
        );
        return { answered: answer };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { closed: true };
        if (error instanceof WorkflowUpdateFailedError && error.cause instanceof CancelledFailure)
          return { cancelled: true };
        if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure)
          return { refused: error.cause.message, type: error.cause.type ?? 'refused' };
        if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
          return { unanswered: (await workerPolls(client)) ? 'under_way' : 'no_worker' };
        throw error;
      }
    },
  };
}
