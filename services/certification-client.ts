import { WorkflowNotFoundError } from '@temporalio/client';
import type { certificationRun, CertificationInput } from '../workflows/certification.ts';
import { workflowIds } from '../workflows/ids.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { workflowName as name, type WorkflowScope } from './workflow-scope.ts';

// A sandbox certification run's workflow, as the workflow client starts and describes it
// (services/workflow-client.ts).

export function certificationClient({ connect, taskQueue }: WorkflowScope) {
  return {
    /** Starts the run's workflow (`certification-<id>`). */
    async startCertificationRun(input: CertificationInput): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof certificationRun>(name('certificationRun'), {
        workflowId: workflowIds.certificationRun(input.certificationId),
        taskQueue,
        args: [input],
        ...summary.certificationRun(input),
      });
    },

    /** Whether the run's workflow still runs: false when it ended or never started. */
    async certificationRunning(certificationId: string): Promise<boolean> {
      try {
        const client = await connect();
        const described = await client.workflow.getHandle(workflowIds.certificationRun(certificationId)).describe();
        return described.status.name === 'RUNNING';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
  };
}
