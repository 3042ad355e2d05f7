import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  confirmOwnerConnectionUpdate,
  ownerConnectKeysChangedSignal,
  ownerConnectionRevokedSignal,
  type OwnerConnectBinding,
  type OwnerConnectConfirmation,
} from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { ownerConnect, OwnerConnectInput } from '../workflows/owner-connect.ts';
import type { ownerConnectKeyRotation } from '../workflows/owner-connect-key-rotation.ts';
import { SA_CHANNEL, SA_STATE } from '../workflows/search-attributes.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { ignoreNotFound, workflowName as name, type WorkflowScope } from './workflow-scope.ts';

// Owner connect's workflows as the workflow client starts them (services/workflow-client.ts): a
// token's confirmation window, and the rotation of the keys that sign tokens.

export function ownerConnectClient({ connect, taskQueue }: WorkflowScope) {
  return {
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
