import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NativeConnection } from '@temporalio/worker';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import { temporalWorkerTracing } from '../infra/tracing.ts';

const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
export const WORKFLOW_BUNDLE_PATH = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
/**
 * The same workflows with the OpenTelemetry workflow interceptors bundled in: a prebuilt bundle
 * cannot take interceptors at start, so a traced worker loads this one (npm run build:workflows
 * writes both). Untraced workers keep the plain bundle: not a line of tracing code in their sandbox.
 */
export const TRACED_WORKFLOW_BUNDLE_PATH = fileURLToPath(new URL('../dist/workflow-bundle-traced.js', import.meta.url));
/** The OpenTelemetry workflow interceptors, in the traced bundle only. */
export const TRACING_INTERCEPTORS_PATH = fileURLToPath(
  new URL('../workflows/tracing-interceptors.ts', import.meta.url),
);

/** Attempts waiting for receivers at once (see createWorker). */
export const DELIVERY_SLOTS = 500;

/**
 * A delivery attempt is a local activity: it holds a workflow-task slot and a local-activity slot
 * while it waits for the receiver, up to 10 s, but almost no CPU. Room for many, so that one slow
 * endpoint (every attempt 9 s) does not take the slots the others' deliveries need. The workflow
 * cache keeps its default (sized from the heap, never 0): a worker without a cache that runs more
 * than one task at a time evicts runs whose local activities are still running, which the SDK core
 * reports as its own bug (test/infra/local-activity-eviction.test.ts).
 */
export const WORKER_TUNING = {
  maxConcurrentWorkflowTaskExecutions: DELIVERY_SLOTS,
  maxConcurrentLocalActivityExecutions: DELIVERY_SLOTS,
} as const;

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** Use the prebuilt bundle (production) rather than bundling the sources at start. */
  prebuilt?: boolean;
  overrides?: Partial<WorkerOptions>;
}

export async function createWorker({
  connection,
  namespace,
  taskQueue,
  deps,
  prebuilt,
  overrides,
}: WorkerSetup): Promise<Worker> {
  // With tracing on: the interceptors (activities' spans, the workflows' through the bundle's
  // module) and the sink the workflows' spans leave the sandbox by. Off: none of it.
  const tracing = temporalWorkerTracing();
  const bundlePath = tracing ? TRACED_WORKFLOW_BUNDLE_PATH : WORKFLOW_BUNDLE_PATH;
  if (prebuilt && !existsSync(bundlePath))
    throw new Error(`no workflow bundle at ${bundlePath}: run npm run build:workflows`);
  const usePrebuilt = prebuilt ?? false;
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    ...(usePrebuilt ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: WORKFLOWS_PATH }),
    // A prebuilt traced bundle has the workflow interceptors in it already.
    ...(tracing
      ? {
          sinks: tracing.sinks,
          interceptors: {
            activity: tracing.activityInterceptors,
            ...(usePrebuilt ? {} : { workflowModules: [TRACING_INTERCEPTORS_PATH] }),
          },
        }
      : {}),
    ...WORKER_TUNING,
    ...overrides,
  });
}

export { WORKFLOWS_PATH };
