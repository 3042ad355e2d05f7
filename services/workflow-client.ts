import type { ApiKeyLifecycleInput, apiKeyLifecycle } from '../workflows/api-key-lifecycle.ts';
import { apiKeyRevokedSignal } from '../workflows/definitions.ts';
import type { horizonRoll } from '../workflows/horizon-roll.ts';
import { workflowIds } from '../workflows/ids.ts';
import { catalogueReprojectionClient } from './catalogue-reprojection-client.ts';
import { certificateExpiryClient } from './certificate-expiry-client.ts';
import { certificationClient } from './certification-client.ts';
import { deliveryRetryClient } from './delivery-retry-client.ts';
import { housekeepingScheduleClient } from './housekeeping-schedule.ts';
import { ownerConnectClient } from './owner-connect-client.ts';
import { sandboxTimeClient } from './sandbox-time-client.ts';
import { sandboxChurnClient } from './sandbox-churn-client.ts';
import { webhookWorkflowsClient } from './webhook-workflows-client.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { ignoreNotFound, workflowName as name, type WorkflowScope } from './workflow-scope.ts';

/**
 * The one place that starts, signals and cancels workflows. Each workflow is named by its
 * function's type (the name is checked against the worker's exports), with its id from
 * `workflows/ids.ts`, so a caller cannot start a workflow under a wrong name, id or argument.
 * Each part takes the same scope (the connection and the task queue), one module per area:
 * keys and horizon rolls here, the rest beside it.
 */
export interface WorkflowClientOptions extends WorkflowScope {
  /** How often the dispatcher looks at the event log when nothing wakes it. */
  dispatchPollSeconds: number;
}

export function createWorkflowClient({ connect, taskQueue, dispatchPollSeconds }: WorkflowClientOptions) {
  const scope: WorkflowScope = { connect, taskQueue };
  return {
    taskQueue,

    /** Resolves when the Temporal frontend answers (for /health). */
    async ping(): Promise<void> {
      const client = await connect();
      await client.workflowService.getSystemInfo({});
    },

    ...apiKeyLifecycleClient(scope),
    /** The certificate-expiry workflows and their catch-up: services/certificate-expiry-client.ts. */
    ...certificateExpiryClient(scope),
    /** The catalogue's re-projection after a deploy: services/catalogue-reprojection-client.ts. */
    ...catalogueReprojectionClient(scope),
    ...horizonRollClient(scope),
    /** The dispatcher, deliveries and secret rotations: services/webhook-workflows-client.ts. */
    ...webhookWorkflowsClient(scope, dispatchPollSeconds),
    /** `delivery retry`: services/delivery-retry-client.ts. */
    ...deliveryRetryClient(scope),
    /** The housekeeping schedule: services/housekeeping-schedule.ts. */
    ...housekeepingScheduleClient(scope),
    /** A token's confirmation window and the signing keys' rotation: services/owner-connect-client.ts. */
    ...ownerConnectClient(scope),
    /** The sandbox's attempt-now and expire-now: services/sandbox-time-client.ts. */
    ...sandboxTimeClient(scope),
    /** The sandbox catalogue's churn: services/sandbox-churn-client.ts. */
    ...sandboxChurnClient(scope),
    /** The sandbox's certification runs: services/certification-client.ts. */
    ...certificationClient(scope),
  };
}

export type WorkflowClient = ReturnType<typeof createWorkflowClient>;

function apiKeyLifecycleClient({ connect, taskQueue }: WorkflowScope) {
  return {
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
  };
}

function horizonRollClient({ connect, taskQueue }: WorkflowScope) {
  return {
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
  };
}
