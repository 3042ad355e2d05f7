import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NativeConnection } from '@temporalio/worker';
import { Worker, type ReplayWorkerOptions, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import { temporalWorkerTracing } from '../infra/tracing.ts';

const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** The workflow code built once for production workers (npm run build:workflows). */
export const WORKFLOW_BUNDLE_PATH = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
/** The OpenTelemetry workflow interceptors: part of the workflow code whatever the tracing setting. */
export const TRACING_INTERCEPTORS_PATH = fileURLToPath(
  new URL('../workflows/tracing-interceptors.ts', import.meta.url),
);

/**
 * The workflow code every worker runs, as `bundleWorkflowCode` takes it: the workflows with the
 * OpenTelemetry workflow interceptors, whether tracing is on or off. One code path: the
 * interceptors' own awaits move when a workflow issues its commands relative to one another, so
 * code without them could not replay a history recorded with them (a delivery hurried by
 * `retryNow` was the case: docs/decisions.md "One workflow code path"). With tracing off the
 * workflows still make their spans, and `workflowSinks` drops them.
 */
export const WORKFLOW_CODE = {
  workflowsPath: WORKFLOWS_PATH,
  workflowInterceptorModules: [TRACING_INTERCEPTORS_PATH],
};

type Sinks = NonNullable<WorkerOptions['sinks']>;
/** The sink the workflows' spans leave by, for a worker or a replay with tracing off: they go nowhere. */
const DROPPED_SPANS: Sinks = { exporter: { export: { fn: () => undefined } } };

/** Where the workflows' spans go: the tracing SDK when tracing is on; nowhere when it is off. */
export function workflowSinks(): Sinks {
  return temporalWorkerTracing()?.sinks ?? DROPPED_SPANS;
}

/** `WORKFLOW_CODE` for a Worker or a replay: the built bundle at `bundlePath`, or the sources bundled now. */
export function workflowCodeOptions(bundlePath?: string): Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'> & {
  interceptors?: { workflowModules: string[] };
} {
  return bundlePath
    ? { workflowBundle: { codePath: bundlePath } }
    : {
        workflowsPath: WORKFLOW_CODE.workflowsPath,
        interceptors: { workflowModules: WORKFLOW_CODE.workflowInterceptorModules },
      };
}

/** What a worker of this checkout runs, for a replay: its spans dropped. */
export function replayOptions(bundlePath?: string): ReplayWorkerOptions {
  return { ...workflowCodeOptions(bundlePath), sinks: DROPPED_SPANS };
}

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
  if (prebuilt && !existsSync(WORKFLOW_BUNDLE_PATH))
    throw new Error(`no workflow bundle at ${WORKFLOW_BUNDLE_PATH}: run npm run build:workflows`);
  // The same workflow code with tracing on or off; on, the activities' spans and the sink the
  // workflows' spans leave the sandbox by go to the tracing SDK.
  const tracing = temporalWorkerTracing();
  const code = workflowCodeOptions(prebuilt ? WORKFLOW_BUNDLE_PATH : undefined);
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    ...code,
    sinks: workflowSinks(),
    interceptors: {
      ...code.interceptors,
      ...(tracing ? { activity: tracing.activityInterceptors } : {}),
    },
    ...WORKER_TUNING,
    ...overrides,
  });
}

export { WORKFLOWS_PATH };
