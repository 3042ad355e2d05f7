import { WorkflowNotFoundError } from '@temporalio/client';
import { sandboxChurnRateSignal, sandboxChurnStopSignal } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { sandboxChurn, SandboxChurnInput, SandboxChurnProgress } from '../workflows/sandbox-churn.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { workflowName as name, type WorkflowScope } from './workflow-scope.ts';

// The sandbox catalogue's churn, as the workflow client starts, paces, stops and reads it
// (services/workflow-client.ts).

/** The churn's last run as Temporal describes it: whether it runs, and the progress its memo holds. */
export interface SandboxChurnState {
  running: boolean;
  status: string;
  progress: SandboxChurnProgress | null;
}

export function sandboxChurnClient({ connect, taskQueue }: WorkflowScope) {
  const handle = async () => (await connect()).workflow.getHandle(workflowIds.sandboxChurn(taskQueue));
  return {
    /** Starts the churn (`sandbox-churn:<task queue>`); one that runs is left as it is (`USE_EXISTING`). */
    async startSandboxChurn(input: SandboxChurnInput): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof sandboxChurn>(name('sandboxChurn'), {
        workflowId: workflowIds.sandboxChurn(taskQueue),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        ...summary.sandboxChurn(input.rate),
      });
    },

    /** The running churn's new pace; false when none runs. */
    async setSandboxChurnRate(rate: number): Promise<boolean> {
      try {
        await (await handle()).signal(sandboxChurnRateSignal, rate);
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },

    /** Asks the running churn to end after its change under way; false when none runs. */
    async stopSandboxChurn(): Promise<boolean> {
      try {
        await (await handle()).signal(sandboxChurnStopSignal);
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },

    /** The churn's latest run, or null when none was ever started on this task queue. */
    async sandboxChurnState(): Promise<SandboxChurnState | null> {
      try {
        const described = await (await handle()).describe();
        const progress = (described.memo?.progress as SandboxChurnProgress | undefined) ?? null;
        return { running: described.status.name === 'RUNNING', status: described.status.name, progress };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      }
    },
  };
}
