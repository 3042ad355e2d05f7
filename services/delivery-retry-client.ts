import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import proto from '@temporalio/proto';
import { retryNowUpdate, retryNowUpdateId, type RetryNowAnswer } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';

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

export function deliveryRetryClient({ connect, taskQueue }: { connect: () => Promise<Client>; taskQueue: string }) {
  /** Whether a worker has polled the task queue's workflow tasks lately (the server keeps the last few minutes). */
  async function workerPolls(client: Client): Promise<boolean> {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (pollers ?? []).length > 0;
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
