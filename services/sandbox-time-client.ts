import { WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { endOwnerConnectWindowUpdate, retryNowUpdate, retryNowUpdateId } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { WorkflowScope } from './workflow-scope.ts';

// The sandbox's time tools as the workflow client makes them (services/workflow-client.ts):
// a waiting delivery hurried, an owner-connect token's window ended now.

export type HurryOutcome =
  /** The delivery's run accepted the `retryNow`: its attempt is being made now. */
  | { accepted: true }
  /** The run refused: not waiting (an attempt under way), or waiting for another attempt. */
  | { refused: string; type: string }
  /** No run of the delivery is running. */
  | { closed: true };

export function sandboxTimeClient({ connect }: WorkflowScope) {
  return {
    /**
     * Has a delivery waiting for `attempt` make it now: the operator's `retryNow` Update, under
     * the same id per attempt (a request for the same attempt joins the first), answered once the
     * run accepted it rather than once the attempt is made.
     */
    async hurryWebhookDelivery(endpointId: string, eventId: string, attempt: number): Promise<HurryOutcome> {
      const client: Client = await connect();
      const handle = client.workflow.getHandle(workflowIds.webhookDelivery(endpointId, eventId));
      try {
        await handle.startUpdate(retryNowUpdate, {
          args: [{ attempt }],
          updateId: retryNowUpdateId(attempt),
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        return { accepted: true };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { closed: true };
        if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure)
          return { refused: error.cause.message, type: error.cause.type ?? 'refused' };
        throw error;
      }
    },

    /**
     * Ends an owner-connect token's confirmation window now (waiting at most `waitMs` for its run
     * to take it); a workflow already ended is left as it is.
     */
    async endOwnerConnectWindow(jti: string, waitMs = 5_000): Promise<void> {
      const client = await connect();
      const handle = client.workflow.getHandle(workflowIds.ownerConnect(jti));
      try {
        await client.withDeadline(Date.now() + waitMs, () => handle.executeUpdate(endOwnerConnectWindowUpdate));
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    },
  };
}
