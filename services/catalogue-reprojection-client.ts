import { WorkflowNotFoundError } from '@temporalio/client';
import type { catalogueReprojection, CatalogueReprojectionInput } from '../workflows/catalogue-reprojection.ts';
import { reprojectionRateSignal } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { workflowName as name, type WorkflowScope } from './workflow-scope.ts';

// The catalogue re-projection of a projection revision, as the workflow client starts and paces
// it (services/workflow-client.ts).

export function catalogueReprojectionClient({ connect, taskQueue }: WorkflowScope) {
  return {
    /**
     * Starts the revision's pass (`catalogue-reprojection:<task queue>:<revision's first 12 digits>`); one under way
     * is left as it is (`USE_EXISTING`).
     */
    async startCatalogueReprojection(input: CatalogueReprojectionInput): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof catalogueReprojection>(name('catalogueReprojection'), {
        workflowId: workflowIds.catalogueReprojection(taskQueue, input.revision),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        ...summary.catalogueReprojection(input.revision),
      });
    },

    /** The pass's new pace, when one runs; false when none runs. */
    async setCatalogueReprojectionRate(revision: string, rate: number): Promise<boolean> {
      const client = await connect();
      try {
        await client.workflow
          .getHandle(workflowIds.catalogueReprojection(taskQueue, revision))
          .signal(reprojectionRateSignal, rate);
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },

    /** Whether the revision's pass runs now. */
    async catalogueReprojectionRunning(revision: string): Promise<boolean> {
      const client = await connect();
      try {
        const described = await client.workflow
          .getHandle(workflowIds.catalogueReprojection(taskQueue, revision))
          .describe();
        return described.status.name === 'RUNNING';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
  };
}
