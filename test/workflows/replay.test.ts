import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, expect, test } from 'vitest';
import { WORKFLOW_CODE, workflowSinks } from '../../app/worker.ts';
import { HISTORIES_DIR } from '../support/time-skipping.ts';

let workflowBundle: WorkflowBundle;
beforeAll(async () => {
  // The code every worker runs, tracing on or off (app/worker.ts).
  workflowBundle = await bundleWorkflowCode(WORKFLOW_CODE);
});

/** A committed history as its JSON, to edit before it is read. */
async function historyJSON(file: string): Promise<any> {
  return JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'));
}

/**
 * Replays every committed history against today's workflow code: a change that would break a
 * running workflow's determinism fails here, not in production. Record new histories with
 * RECORD_HISTORIES=1 npm test.
 */
test('committed workflow histories replay without nondeterminism', async () => {
  const files = (await readdir(HISTORIES_DIR)).filter((f) => f.endsWith('.json')).sort();
  expect(files.length).toBeGreaterThan(0);
  const histories = await Promise.all(
    files.map(async (file) => ({
      workflowId: path.basename(file, '.json'),
      history: historyFromJSON(await historyJSON(file)),
    })),
  );
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle, sinks: workflowSinks() }, histories)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
});

/**
 * The other direction: a history whose commands today's code does not issue fails the replay
 * with DeterminismViolationError, so the test above would catch such a change. The history is
 * the secret rotation's: a 24-hour timer, then `destroyPreviousSecret`. (A timer's duration is
 * not compared on replay, only its place among the commands: the workflow tests with stand-in
 * activities, test/workflows-unit, check durations.)
 */
test.each([
  [
    'its activity renamed in the ActivityTaskScheduled event',
    (history: any) => {
      const scheduled = history.events.find((e: any) => e.activityTaskScheduledEventAttributes);
      scheduled.activityTaskScheduledEventAttributes.activityType.name = 'destroyOldSecret';
    },
  ],
  [
    'its timer removed (TimerStarted to the next workflow task, events renumbered)',
    (history: any) => {
      const started = history.events.findIndex((e: any) => e.timerStartedEventAttributes);
      // TimerStarted, TimerFired, and the workflow task the timer woke.
      history.events.splice(started, 5);
      history.events.forEach((e: any, i: number) => (e.eventId = String(i + 1)));
    },
  ],
])('a committed history with %s fails replay with DeterminismViolationError', async (_edit, edit) => {
  const history = await historyJSON('webhook-secret-rotation.json');
  // Unedited, it replays: what fails below is the edit.
  await Worker.runReplayHistory({ workflowBundle, sinks: workflowSinks() }, historyFromJSON(history));
  edit(history);
  await expect(
    Worker.runReplayHistory({ workflowBundle, sinks: workflowSinks() }, historyFromJSON(history)),
  ).rejects.toThrow(DeterminismViolationError);
});

/**
 * The churn's and the certification run's histories, recorded with stand-in activities by
 * test/workflows-unit/recorded-histories.test.ts: each is committed, replays on its own, and holds
 * the path it was recorded for (the churn's stop signal; the certification's judge last).
 */
test.each([
  [
    'sandbox-churn-stopped.json',
    'sandboxChurnStop',
    (e: any) => e.workflowExecutionSignaledEventAttributes?.signalName,
  ],
  [
    'certification-run-passed.json',
    'judgeCertification',
    (e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name,
  ],
])('the committed %s holds %s last of its kind and replays on its own', async (file, expected, pick) => {
  const history = await historyJSON(file);
  expect(history.events.map(pick).filter(Boolean).at(-1)).toBe(expected);
  await Worker.runReplayHistory(
    { workflowBundle, sinks: workflowSinks() },
    historyFromJSON(history),
    path.basename(file, '.json'),
  );
});

test("the worker's code holds none of OpenTelemetry's modules: each workflow would build them again", () => {
  // The interceptors (workflows/tracing-interceptors.ts) make their spans without them; a module of
  // the package's interceptors or of OpenTelemetry in the bundle means one came back by an import.
  const modules = [...workflowBundle.code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1]!);
  expect(modules.some((id) => id.includes('/@temporalio/workflow/'))).toBe(true);
  expect(modules.filter((id) => /@opentelemetry|interceptors-opentelemetry/.test(id))).toEqual([]);
});
