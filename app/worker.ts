import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NativeConnection} from '@temporalio/worker';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';

const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
export const WORKFLOW_BUNDLE_PATH = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** Use the prebuilt bundle (production) rather than bundling the sources at start. */
  prebuilt?: boolean;
  overrides?: Partial<WorkerOptions>;
}

export async function createWorker({ connection, namespace, taskQueue, deps, prebuilt, overrides }: WorkerSetup): Promise<Worker> {
  if (prebuilt && !existsSync(WORKFLOW_BUNDLE_PATH)) throw new Error(`no workflow bundle at ${WORKFLOW_BUNDLE_PATH}: run npm run build:workflows`);
  const usePrebuilt = prebuilt ?? false;
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    ...(usePrebuilt ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } } : { workflowsPath: WORKFLOWS_PATH }),
    ...overrides,
  });
}

export { WORKFLOWS_PATH };
