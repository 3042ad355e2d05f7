import { asyncLocalStorage } from '@temporalio/activity';
import * as reprojection from '../services/catalogue-reprojection.ts';
import type { ActivityDeps } from './deps.ts';

export type { ReprojectionBatch, ReprojectionState } from '../services/catalogue-reprojection.ts';

export function catalogueReprojectionActivities(deps: ActivityDeps) {
  const { log } = deps;
  return {
    /** A re-projection begins or goes on: where it stands. */
    async beginCatalogueReprojection(revision: string, again: boolean): Promise<reprojection.ReprojectionState> {
      return reprojection.beginCatalogueReprojection(deps, revision, again);
    },

    /**
     * One batch of a re-projection. It heartbeats after each transaction commits, and stops when
     * Temporal cancels it (its heartbeat timed out: the batch already runs elsewhere).
     */
    async reprojectCatalogueBatch(step: { revision: string; limit: number }): Promise<reprojection.ReprojectionBatch> {
      const context = asyncLocalStorage.getStore();
      const batch = await reprojection.reprojectCatalogueBatch(deps, step, {
        ...(context ? { committed: () => context.heartbeat(), signal: context.cancellationSignal } : {}),
      });
      if (batch.state.finishedAt)
        log.info('catalogue re-projection finished', {
          revision: step.revision,
          visited: batch.state.visited,
          written: batch.state.written,
        });
      return batch;
    },
  };
}
