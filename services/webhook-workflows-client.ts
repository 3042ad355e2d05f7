import {
  InternalConnectionLikeSymbol,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type InternalConnectionLike,
} from '@temporalio/client';
import type { DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import { eventsCommittedSignal } from '../workflows/definitions.ts';
import type { eventDispatch } from '../workflows/event-dispatch.ts';
import { workflowIds } from '../workflows/ids.ts';
import { SA_CHANNEL, SA_ENDPOINT, SA_EVENT_TYPE, SA_STATE } from '../workflows/search-attributes.ts';
import type { DeliveryInput, webhookDelivery } from '../workflows/webhook-delivery.ts';
import type { SecretRotationInput, webhookSecretRotation } from '../workflows/webhook-secret-rotation.ts';
import { soleWorkerLook } from './eager-start.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { ignoreNotFound, workflowName as name, type WorkflowScope } from './workflow-scope.ts';

// The webhook pipeline's workflows as the workflow client starts them (services/workflow-client.ts):
// the dispatcher, one delivery per (endpoint, event), and a rotated secret's overlap.

/** A delivery's workflow-task timeout: room for one whole attempt (10 s) and its database work. */
const DELIVERY_TASK_TIMEOUT = '20 seconds';

export function webhookWorkflowsClient({ connect, taskQueue }: WorkflowScope, dispatchPollSeconds: number) {
  const soleWorker = soleWorkerLook(taskQueue);
  return {
    /** Wakes this task queue's dispatcher, starting it when it is not running. */
    async wakeDispatcher(): Promise<void> {
      const client = await connect();
      await client.workflow.signalWithStart<typeof eventDispatch, []>(name('eventDispatch'), {
        workflowId: workflowIds.eventDispatch(taskQueue),
        taskQueue,
        args: [{ pollSeconds: dispatchPollSeconds, dispatch: 'local' }],
        signal: eventsCommittedSignal,
        signalArgs: [],
        ...summary.eventDispatch(taskQueue, dispatchPollSeconds),
      });
    },

    /**
     * Starts the delivery of one event to one endpoint. Its id is unique per (endpoint, event), so
     * a retried or replayed dispatch starts nothing twice, and a finished delivery is not started again.
     * In the worker (the dispatcher), whose client shares the worker's connection, the start asks
     * for eager execution while this worker is the only one polling the task queue: the server
     * hands the first workflow task back in its answer, to this worker, instead of queueing it for
     * a poll. With more workers it goes through the queue, so each takes its share of the first
     * attempts (services/eager-start.ts). `host` is the endpoint's, for the UI's summary.
     */
    async startWebhookDelivery(input: DeliveryInput, host: string, options: { again?: boolean } = {}): Promise<void> {
      const client = await connect();
      try {
        await client.workflow.start<typeof webhookDelivery>(name('webhookDelivery'), {
          workflowId: workflowIds.webhookDelivery(input.endpointId, input.eventId),
          taskQueue,
          args: [input],
          requestEagerStart: supportsEagerStart(client) && (await soleWorker(client)),
          // An attempt (a local activity) runs inside a workflow task for up to 10 s; with the
          // default 10-s task timeout each slow one would also make its task heartbeat at 8 s.
          workflowTaskTimeout: DELIVERY_TASK_TIMEOUT,
          workflowIdConflictPolicy: 'USE_EXISTING',
          // `again`: an operator drives a delivery whose run has ended without it (docs/operations.md).
          workflowIdReusePolicy: options.again ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: SA_CHANNEL, value: input.channel },
            { key: SA_ENDPOINT, value: input.endpointId },
            { key: SA_EVENT_TYPE, value: input.eventType },
            { key: SA_STATE, value: 'pending' satisfies DeliveryWorkflowState },
          ],
          ...summary.webhookDelivery(input, host),
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },

    /** Cancels delivery workflows; one that has already ended is left as it is. */
    async cancelWebhookDeliveries(deliveries: readonly { endpointId: string; eventId: string }[]): Promise<void> {
      if (deliveries.length === 0) return;
      const client = await connect();
      for (const { endpointId, eventId } of deliveries) {
        await ignoreNotFound(client.workflow.getHandle(workflowIds.webhookDelivery(endpointId, eventId)).cancel());
      }
    },

    /**
     * Starts the overlap of a rotated-out secret, which destroys it when the overlap ends. It is
     * started before the rotation commits; a start for the same generation (a retried transaction,
     * or one whose commit failed) replaces the earlier one, so the overlap counts from the latest.
     */
    async startSecretRotation(input: SecretRotationInput, channel: string): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof webhookSecretRotation>(name('webhookSecretRotation'), {
        workflowId: workflowIds.webhookSecretRotation(input.endpointId, input.generation),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
        typedSearchAttributes: [
          { key: SA_CHANNEL, value: channel },
          { key: SA_ENDPOINT, value: input.endpointId },
        ],
        ...summary.webhookSecretRotation(input, channel),
      });
    },
  };
}

/** Eager start needs the worker's own (native) connection; a plain client connection refuses the option. */
function supportsEagerStart(client: Client): boolean {
  return (client.connection as InternalConnectionLike)[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}
