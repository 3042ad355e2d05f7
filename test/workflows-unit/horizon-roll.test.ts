import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nextLocalMidnight } from '../../domain/availability/zones.ts';
import type { HorizonRollInput, horizonRoll } from '../../workflows/horizon-roll.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import {
  idle,
  made,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

const ZONE = 'Europe/Bucharest';

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const rolls: StandIns = { rollHorizon: () => ({ properties: 1, rolled: 1, today: '' }) };

async function start(standIns: StandIns, input: Partial<HorizonRollInput> = {}) {
  const { workflowId, calls } = worker.workflow(standIns);
  const handle = await worker.env.client.workflow.start<typeof horizonRoll>('horizonRoll', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ zone: ZONE, ...input }],
  });
  return { handle, calls };
}

/** Moves the test server's time to `at` plus `ms`. */
const sleepUntil = async (at: number, ms = 0) => worker.env.sleep(at + ms - (await worker.env.currentTimeMs()));

describe('horizonRoll with stand-in activities', () => {
  test("it rolls its zone at start for the instant it woke, then at the zone's next local midnight for that midnight; SvcState rolling", async () => {
    const { handle, calls } = await start(rolls);
    await made(calls, 1);
    const [zone, wokeAt] = calls[0]!.args as [string, number];
    expect(zone).toBe(ZONE);
    expect(Math.abs(wokeAt - calls[0]!.atMs)).toBeLessThan(SLACK_MS);
    const midnight = nextLocalMidnight(wokeAt, ZONE);
    await sleepUntil(midnight, -60_000);
    expect(calls).toHaveLength(1);
    await sleepUntil(midnight, 60_000);
    await made(calls, 2);
    expect(calls[1]!.args[0]).toBe(ZONE);
    expect(calls[1]!.args[1] as number).toBeGreaterThanOrEqual(midnight);
    expect((calls[1]!.args[1] as number) - midnight).toBeLessThan(SLACK_MS);
    expect((await handle.describe()).typedSearchAttributes.get(SA_STATE)).toBe('rolling');
    await idle(handle);
    await handle.terminate();
  });

  test('after rollsPerRun rolls it continues as new, and the new run rolls at once for the midnight it woke at', async () => {
    const { handle, calls } = await start(rolls, { rollsPerRun: 1 });
    await made(calls, 1);
    const midnight = nextLocalMidnight(calls[0]!.args[1] as number, ZONE);
    await sleepUntil(midnight, 60_000);
    await made(calls, 2);
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    expect(calls[1]!.args[1] as number).toBeGreaterThanOrEqual(midnight);
    expect((calls[1]!.args[1] as number) - midnight).toBeLessThan(SLACK_MS);
    await idle(handle);
    await handle.terminate();
  });

  test("a roll that ends after the next local midnight is followed at once by the next day's roll, for the instant it woke at, without a timer between them", async () => {
    const midnight = nextLocalMidnight(await worker.env.currentTimeMs(), ZONE);
    const ROLL_MS = 50_000;
    await sleepUntil(midnight, -30_000);
    let roll = 0;
    const { handle, calls } = await start({
      async rollHorizon() {
        roll += 1;
        // The first roll takes 50 s, past midnight: the test server moves its clock while this
        // activity runs (it can, as the test awaits the result). Under the roll's heartbeat
        // timeout, since a stand-in sends none. The third ends the workflow.
        if (roll === 1) await worker.env.sleep(ROLL_MS);
        if (roll === 3) throw ApplicationFailure.nonRetryable('the test has seen enough', 'EndOfTest');
        return { properties: 1, rolled: 1, today: '' };
      },
    });
    await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
    expect(calls).toHaveLength(3);
    const [first, second] = calls.map((call) => call.args[1] as number) as [number, number];
    expect(first).toBeLessThan(midnight);
    expect(second).toBeGreaterThanOrEqual(first + ROLL_MS);
    expect(second - (first + ROLL_MS)).toBeLessThan(SLACK_MS);
    // One timer only, and the third roll after it: none between the first two.
    expect(await timerDurations(handle)).toHaveLength(1);
  });
});
