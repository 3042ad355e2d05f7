import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ReprojectionState } from '../../activities/catalogue-reprojection.ts';
import type { catalogueReprojection, CatalogueReprojectionInput } from '../../workflows/catalogue-reprojection.ts';
import { reprojectionRateSignal } from '../../workflows/definitions.ts';
import { made, startStandInWorker, timerDurations, type StandInWorker } from '../support/workflow-stand-ins.ts';

// The re-projection's pace and its resumption, with stand-in activities over a catalogue of
// `total` properties: the cursor lives with the activities (the database's, in the service).

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const at = new Date('2026-11-28T00:00:00Z');
const REVISION = 'f'.repeat(64);

/** Stand-ins over `total` properties: each batch moves the shared cursor by its limit. */
function catalogueOf(total: number, start: Partial<ReprojectionState> = {}) {
  const state: ReprojectionState = {
    revision: REVISION,
    after: null,
    visited: 0,
    written: 0,
    startedAt: at,
    finishedAt: null,
    ...start,
  };
  return {
    state,
    standIns: {
      beginCatalogueReprojection: () => ({ ...state }),
      reprojectCatalogueBatch: ({ limit }: { revision: string; limit: number }) => {
        const visited = Math.min(limit, total - state.visited);
        state.visited += visited;
        state.after = `p${state.visited}`;
        if (visited < limit || state.visited === total) state.finishedAt = at;
        return { visited, state: { ...state } };
      },
    },
  };
}

async function start(standIns: ReturnType<typeof catalogueOf>['standIns'], input: Partial<CatalogueReprojectionInput>) {
  const { workflowId, calls } = worker.workflow(standIns);
  const handle = await worker.env.client.workflow.start<typeof catalogueReprojection>('catalogueReprojection', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ revision: REVISION, rate: 10, ...input }],
  });
  return { handle, calls };
}

describe('catalogueReprojection with stand-in activities', () => {
  test('batches of one second of the rate, each followed by a timer of the time its properties take at the rate', async () => {
    const { standIns } = catalogueOf(45);
    const { handle, calls } = await start(standIns, { rate: 10 });
    expect(await handle.result()).toBe(45);
    const batches = calls.filter((call) => call.name === 'reprojectCatalogueBatch');
    expect(batches.map((call) => (call.args[0] as { limit: number }).limit)).toEqual([10, 10, 10, 10, 10]);
    // A timer after each batch but the last; each at most the batch's second, less what the batch took.
    const timers = await timerDurations(handle);
    expect(timers).toHaveLength(4);
    for (const ms of timers) expect(ms).toBeGreaterThan(500);
    for (const ms of timers) expect(ms).toBeLessThanOrEqual(1_000);
    // Over the whole pass: no faster than the rate.
    const span = batches.at(-1)!.atMs - batches[0]!.atMs;
    expect(span).toBeGreaterThanOrEqual(4 * 1_000 - 50);
  });

  test('a new rate signalled while it runs sets the size of the next batches', async () => {
    const { standIns } = catalogueOf(1_000);
    const { handle, calls } = await start(standIns, { rate: 5 });
    await made(calls, 2);
    await handle.signal(reprojectionRateSignal, 50);
    await made(calls, 6);
    const limits = calls
      .filter((call) => call.name === 'reprojectCatalogueBatch')
      .map((call) => (call.args[0] as { limit: number }).limit);
    expect(limits[0]).toBe(5);
    expect(limits.at(-1)).toBe(50);
    await handle.terminate();
  });

  test('a pass that begins where an earlier one stopped goes on from the cursor it is given, and a finished one does nothing', async () => {
    const { standIns, state } = catalogueOf(30, { visited: 20, after: 'p20' });
    const { handle } = await start(standIns, { rate: 100 });
    expect(await handle.result()).toBe(30);
    expect(state.visited).toBe(30);

    const finished = catalogueOf(30, { visited: 30, after: 'p30', finishedAt: at });
    const again = await start(finished.standIns, { rate: 100 });
    expect(await again.handle.result()).toBe(30);
    expect(again.calls.map((call) => call.name)).toEqual(['beginCatalogueReprojection']);
  });

  test('after batchesPerRun batches it continues as new, and the new run begins again from the cursor', async () => {
    const { standIns } = catalogueOf(25);
    const { handle, calls } = await start(standIns, { rate: 10, batchesPerRun: 1 });
    expect(await handle.result()).toBe(25);
    expect(calls.map((call) => call.name)).toEqual([
      'beginCatalogueReprojection',
      'reprojectCatalogueBatch',
      'beginCatalogueReprojection',
      'reprojectCatalogueBatch',
      'beginCatalogueReprojection',
      'reprojectCatalogueBatch',
    ]);
  });
});
