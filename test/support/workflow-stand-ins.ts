import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { workflowSinks } from '../../app/worker.ts';
import { startTimeSkippingServer } from './test-server.ts';
import { NO_CACHE } from './worker-tuning.ts';

// Workflow orchestration without PostgreSQL or receivers: the workflows run on the time-skipping
// test server, and their activities are plain functions that record each call and answer what
// the test says. One server and one worker per test file; each test gives its own stand-ins for
// the workflow ids it starts.

export type ActivityName = keyof Activities;

/**
 * Real time the test server's clock may run on between two points of one workflow step (a task,
 * an activity's start) on a busy machine, when no result is awaited and so time does not skip.
 */
export const SLACK_MS = 5_000;

/** Stand-ins for some of the activities: each answers what its real one would, or throws. */
export type StandIns = {
  [K in ActivityName]?: (
    ...args: Parameters<Activities[K]>
  ) => Awaited<ReturnType<Activities[K]>> | ReturnType<Activities[K]>;
};

export interface Call {
  name: ActivityName;
  args: unknown[];
  /** The test server's time when the call began: the workflow time it was made at. */
  atMs: number;
}

export interface StandInWorker {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  /**
   * A fresh workflow id whose activity calls (in every run of it) `standIns` answer, and the
   * list those calls are recorded into, in order. A call of an activity without a stand-in is
   * recorded too, and fails without retry: the workflow sees the failure at once.
   */
  workflow(standIns: StandIns): { workflowId: string; calls: Call[] };
  /** Stops the worker and the server. */
  stop(): Promise<void>;
}

/**
 * A time-skipping server and a worker on it with the workflow code bundled once for the run
 * (test/support/workflow-bundle.ts), for a test file's `beforeAll`. The worker keeps no workflow
 * cache, so every workflow task replays the history so far, as a restarted worker would.
 */
export async function startStandInWorker(): Promise<StandInWorker> {
  try {
    // Errors only: the worker's state changes and the activity failures tests ask for would fill
    // the unit run's output, and the SDK core warns of a capability the test server lacks.
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // Installed already in this process.
  }
  const env = await startTimeSkippingServer();
  const byWorkflow = new Map<string, { standIns: StandIns; calls: Call[] }>();
  const taskQueue = `stand-ins-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { code: inject('workflowBundle') },
    // The bundle holds the workflows' tracing interceptors, as a worker's does; their spans go nowhere.
    sinks: workflowSinks(),
    // The worker's fallback for every activity type it has no function of its own for.
    activities: {
      async default(...args: unknown[]) {
        const { activityType, workflowExecution } = Context.current().info;
        const name = activityType as ActivityName;
        const test = byWorkflow.get(workflowExecution?.workflowId ?? '');
        test?.calls.push({ name, args, atMs: await env.currentTimeMs() });
        const standIn = test?.standIns[name] as ((...args: unknown[]) => unknown) | undefined;
        if (!standIn) throw ApplicationFailure.nonRetryable(`no stand-in for activity ${name}`, 'NoStandIn');
        return standIn(...args);
      },
    },
    ...NO_CACHE,
  });
  const running = worker.run();
  return {
    env,
    taskQueue,
    workflow(standIns) {
      const workflowId = `stand-ins-${randomUUID()}`;
      const calls: Call[] = [];
      byWorkflow.set(workflowId, { standIns, calls });
      return { workflowId, calls };
    },
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

/** Each call as `name(args)`, for asserting the order and arguments in one list. */
export function described(calls: readonly Call[]): string[] {
  return calls.map((call) => `${call.name}(${call.args.map((arg) => JSON.stringify(arg)).join(', ')})`);
}

/** The durations of the timers the workflow's current run started, in milliseconds, in order. */
export async function timerDurations(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6)] : [];
  });
}

/**
 * The activities the current run's history shows as activity tasks (by name, in order) and the
 * number of its markers (a local activity's result is one).
 */
export async function activityKinds(handle: WorkflowHandle): Promise<{ scheduled: string[]; markers: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    scheduled: events.flatMap((event) => {
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      return name ? [name] : [];
    }),
    markers: events.filter((event) => event.markerRecordedEventAttributes).length,
  };
}

/** Waits until `count` calls were recorded (bounded). */
export async function made(calls: readonly Call[], count: number): Promise<void> {
  await expect.poll(() => calls.length, { timeout: 10_000 }).toBe(count);
}

/**
 * Waits until the workflow is idle: its last event is a timer's start or a workflow task's
 * completion, with no activity or workflow task under way. Terminate a workflow only then: the
 * test server keeps time from skipping while a task is under way, and a task that a termination
 * cuts off holds it so for good.
 */
export async function idle(handle: WorkflowHandle): Promise<void> {
  await expect
    .poll(
      async () => {
        const last = ((await handle.fetchHistory()).events ?? []).at(-1);
        return Boolean(last?.timerStartedEventAttributes ?? last?.workflowTaskCompletedEventAttributes);
      },
      { timeout: 10_000 },
    )
    .toBe(true);
}
