import {
  InternalConnectionLikeSymbol,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type InternalConnectionLike,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import type { apiKeyLifecycle, ApiKeyLifecycleInput } from '../workflows/api-key-lifecycle.ts';
import {
  apiKeyRevokedSignal,
  confirmOwnerConnectionUpdate,
  eventsCommittedSignal,
  ownerConnectKeysChangedSignal,
  ownerConnectionRevokedSignal,
  type OwnerConnectBinding,
  type OwnerConnectConfirmation,
} from '../workflows/definitions.ts';
import type { eventDispatch } from '../workflows/event-dispatch.ts';
import type { horizonRoll } from '../workflows/horizon-roll.ts';
import type { ownerConnect, OwnerConnectInput } from '../workflows/owner-connect.ts';
import { workflowIds } from '../workflows/ids.ts';
import type * as workflows from '../workflows/index.ts';
import type { ownerConnectKeyRotation } from '../workflows/owner-connect-key-rotation.ts';
import { SA_CHANNEL, SA_ENDPOINT, SA_EVENT_TYPE, SA_STATE } from '../workflows/search-attributes.ts';
import type { DeliveryInput, webhookDelivery } from '../workflows/webhook-delivery.ts';
import type { SecretRotationInput, webhookSecretRotation } from '../workflows/webhook-secret-rotation.ts';
import { certificateExpiryClient } from './certificate-expiry-client.ts';
import { deliveryRetryClient } from './delivery-retry-client.ts';
import { soleWorkerLook } from './eager-start.ts';
import { housekeepingScheduleClient } from './housekeeping-schedule.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';

/**
 * The one place that starts, signals and cancels workflows. Each workflow is named by its
 * function's type (the name is checked against the worker's exports), with its id from
 * `workflows/ids.ts`, so a caller cannot start a workflow under a wrong name, id or argument.
 */
type WorkflowName = keyof typeof workflows;
/** A delivery's workflow-task timeout: room for one whole attempt (10 s) and its database work. */
const DELIVERY_TASK_TIMEOUT = '20 seconds';
const name = <N extends WorkflowName>(workflow: N): N => workflow;

export interface WorkflowClientOptions {
  /** The Temporal client, connected on first use (the CLI connects only for commands that need it). */
  connect: () => Promise<Client>;
  taskQueue: string;
  /** How often the dispatcher looks at the event log when nothing wakes it. */
  dispatchPollSeconds: number;
}

export function createWorkflowClient({ connect, taskQueue, dispatchPollSeconds }: WorkflowClientOptions) {
  const soleWorker = soleWorkerLook(taskQueue);
  return {
    taskQueue,

    /** Resolves when the Temporal frontend answers (for /health). */
    async ping(): Promise<void> {
      const client = await connect();
      await client.workflowService.getSystemInfo({});
    },

    /** Starts the lifecycle that marks a key expired at `expiresAt` (`api-key:<id>`). */
    async startApiKeyLifecycle(input: ApiKeyLifecycleInput): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof apiKeyLifecycle>(name('apiKeyLifecycle'), {
        workflowId: workflowIds.apiKeyLifecycle(input.keyId),
        taskQueue,
        args: [input],
        ...summary.apiKeyLifecycle(input),
      });
    },

    /** Ends a key's lifecycle on revocation; an already-ended lifecycle (an expired key) is fine. */
    async signalApiKeyRevoked(keyId: string): Promise<void> {
      const client = await connect();
      await ignoreNotFound(client.workflow.getHandle(workflowIds.apiKeyLifecycle(keyId)).signal(apiKeyRevokedSignal));
    },

    /** The certificate-expiry workflows and their catch-up: services/certificate-expiry-client.ts. */
    ...certificateExpiryClient({ connect, taskQueue }),

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
     * Makes the owner-connect key rotation (`owner-connect-keys:<task queue>`) plan again from
     * what is committed, with this rotation period, starting it when it is not running.
     */
    async planOwnerConnectKeys(rotationDays: number): Promise<void> {
      const client = await connect();
      await client.workflow.signalWithStart<typeof ownerConnectKeyRotation, [{ rotationDays: number } | undefined]>(
        name('ownerConnectKeyRotation'),
        {
          workflowId: workflowIds.ownerConnectKeys(taskQueue),
          taskQueue,
          args: [{ rotationDays }],
          signal: ownerConnectKeysChangedSignal,
          signalArgs: [{ rotationDays }],
          ...summary.ownerConnectKeyRotation(taskQueue, rotationDays),
        },
      );
    },

    /**
     * Makes sure each zone has its horizon roll running. Starting one that runs is a no-op
     * (`USE_EXISTING`); one that ended is started again and catches up at once.
     */
    async ensureHorizonRolls(zones: readonly string[]): Promise<void> {
      const client = await connect();
      for (const zone of new Set(zones)) {
        await client.workflow.start<typeof horizonRoll>(name('horizonRoll'), {
          workflowId: workflowIds.horizonRoll(taskQueue, zone),
          taskQueue,
          args: [{ zone }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          ...summary.horizonRoll(zone),
        });
      }
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

    /** `delivery retry`: services/delivery-retry-client.ts. */
    ...deliveryRetryClient({ connect, taskQueue }),

    /** The housekeeping schedule: services/housekeeping-schedule.ts. */
    ...housekeepingScheduleClient({ connect, taskQueue }),

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

    /** Starts the token's confirmation window (`owner-connect:<jti>`); a jti is never started twice. */
    async startOwnerConnect(input: OwnerConnectInput): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof ownerConnect>(name('ownerConnect'), {
        workflowId: workflowIds.ownerConnect(input.jti),
        taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA_CHANNEL, value: input.channel },
          { key: SA_STATE, value: 'waiting' },
        ],
        ...summary.ownerConnect(input),
      });
    },

    /**
     * Confirms a verified token through its workflow's Update: the binding, the code of the
     * workflow's refusal (`owner_connect_token_used` / `_expired`), or `closed` when the workflow has
     * ended (the caller then answers from the token's record).
     */
    async confirmOwnerConnect(
      jti: string,
      confirmation: OwnerConnectConfirmation,
    ): Promise<{ binding: OwnerConnectBinding } | { refused: string } | { closed: true }> {
      const client = await connect();
      try {
        return {
          binding: await client.workflow
            .getHandle(workflowIds.ownerConnect(jti))
            .executeUpdate(confirmOwnerConnectionUpdate, { args: [confirmation] }),
        };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { closed: true };
        if (
          error instanceof WorkflowUpdateFailedError &&
          error.cause instanceof ApplicationFailure &&
          error.cause.type?.startsWith('owner_')
        )
          return { refused: error.cause.type };
        throw error;
      }
    },

    /** The connection a token made is gone: its workflow refuses it from now on and ends. */
    async signalOwnerConnectionRevoked(jti: string): Promise<void> {
      const client = await connect();
      await ignoreNotFound(
        client.workflow.getHandle(workflowIds.ownerConnect(jti)).signal(ownerConnectionRevokedSignal),
      );
    },
  };
}

export type WorkflowClient = ReturnType<typeof createWorkflowClient>;

/** Eager start needs the worker's own (native) connection; a plain client connection refuses the option. */
function supportsEagerStart(client: Client): boolean {
  return (client.connection as InternalConnectionLike)[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
