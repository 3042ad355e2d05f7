import { ScheduleAlreadyRunning } from '@temporalio/client';
import type { housekeeping } from '../workflows/housekeeping.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { WorkflowScope } from './workflow-scope.ts';

/** How often the deployment's housekeeping runs. */
export const HOUSEKEEPING_EVERY = '1 minute';

/**
 * The schedule that runs the deployment's housekeeping (`housekeeping:<task queue>`), as the
 * workflow client makes it (services/workflow-client.ts): every minute, never two passes at once
 * (a start due while a pass runs is skipped), and a start missed while Temporal was away is made
 * only within the minute. Operators see it under Schedules in the Temporal UI, and may pause it.
 */
export function housekeepingScheduleClient({ connect, taskQueue }: WorkflowScope) {
  return {
    /** Creates the schedule when it does not exist; one that does (paused by an operator, too) is left as it is. */
    async ensureHousekeepingSchedule(): Promise<void> {
      const client = await connect();
      try {
        await client.schedule.create({
          scheduleId: workflowIds.housekeeping(taskQueue),
          spec: { intervals: [{ every: HOUSEKEEPING_EVERY }] },
          action: {
            type: 'startWorkflow',
            workflowType: 'housekeeping' satisfies keyof { housekeeping: typeof housekeeping },
            workflowId: workflowIds.housekeeping(taskQueue),
            taskQueue,
            args: [],
            staticSummary: `Housekeeping of task queue ${taskQueue}: retention and re-sealing`,
          },
          policies: { overlap: 'SKIP', catchupWindow: HOUSEKEEPING_EVERY },
        });
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      }
    },
  };
}
