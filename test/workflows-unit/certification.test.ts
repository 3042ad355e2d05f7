import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { GatheredObservations } from '../../services/certification-judge.ts';
import type { certificationRun, CertificationInput } from '../../workflows/certification.ts';
import {
  startStandInWorker,
  timerDurations,
  type Call,
  type StandIns,
  type StandInWorker,
} from '../support/workflow-stand-ins.ts';
import { AT, CERTIFICATION_INPUT, certificationStandIns, probe, TYPES } from '../support/certification-stand-ins.ts';

// The certification run's orchestration with stand-in activities: the order of its steps, what it
// hands the judge, its waits (the withdrawal's watch, the throttle's window), and a step that fails.

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const standIns = certificationStandIns;
async function run(given: StandIns, input: Partial<CertificationInput> = {}) {
  const { workflowId, calls } = worker.workflow(given);
  const handle = await worker.env.client.workflow.start<typeof certificationRun>('certificationRun', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ ...CERTIFICATION_INPUT, ...input }],
  });
  return { handle, calls, state: await handle.result() };
}

const names = (calls: Call[]) => calls.map((call) => call.name).filter((name) => name !== 'setCertificationStep');

describe('certificationRun with stand-in activities', () => {
  test('probes, triggers each type in the order given, provokes a 429, hands off, then judges what it gathered', async () => {
    const { calls, state } = await run(standIns());
    expect(state).toBe('passed');
    expect(names(calls)).toEqual([
      'prepareCertification',
      'sendCertificationProbe',
      'sendCertificationProbe',
      'sendCertificationProbe',
      ...TYPES.map(() => 'triggerCertificationEvent'),
      'certificationWindowLeft',
      'fillCertificationWindow',
      'triggerCertificationEvent',
      'handOffCertificationOwner',
      'awaitCertificationOwner',
      'judgeCertification',
    ]);
    const triggers = calls
      .filter((call) => call.name === 'triggerCertificationEvent')
      .map((call) => call.args.slice(1));
    expect(triggers).toEqual([...TYPES.map((type) => [type, true]), ['property.updated', false]]);
    expect(calls.filter((call) => call.name === 'sendCertificationProbe').map((call) => call.args[1])).toEqual([
      'wrong_secret',
      'stale_timestamp',
      'rotation',
    ]);
    const gathered = calls.find((call) => call.name === 'judgeCertification')!.args[1] as GatheredObservations;
    expect(Object.keys(gathered.attempts)).toEqual(TYPES);
    expect(gathered.wrongSecret).toEqual(probe('wrong_secret'));
    expect(gathered.staleTimestamp).toEqual(probe('stale_timestamp'));
    expect(gathered.rotation).toEqual(probe('rotation'));
    expect(gathered.propertyUpdated).toEqual({ propertyId: 'prp_1', at: AT });
    expect(gathered.availabilityUpdated).toEqual({ propertyId: 'prp_1', from: '2026-12-05', to: '2026-12-06', at: AT });
    expect(gathered.withdrawn?.propertyId).toBe('prp_1');
    expect(gathered.throttle).toEqual({ filledAt: AT, windowEndsAt: '2026-11-28T12:00:15.000Z' });
    expect(gathered.ownerConnect).toEqual({
      ownerId: 'own_1',
      tokenId: 'jti-1',
      handedOffAt: AT,
      confirmedAt: '2026-11-28T12:00:30.000Z',
      windowEndsAt: '2026-11-28T13:00:00.000Z',
    });
  });

  test('watches the withdrawal, waits for the last seconds of a rate window, then past its end', async () => {
    const { handle, calls } = await run(standIns(), { timing: { withdrawnWatchMs: 7_000, throttleLeadMs: 15_000 } });
    // The watch; the window's 50 s left less the 15 s lead; its 15 s left and 10 s more.
    const timers = await timerDurations(handle);
    expect(timers).toHaveLength(3);
    expect(timers[0]).toBe(7_000);
    expect(timers[1]).toBe(35_000);
    expect(timers[2]).toBeGreaterThan(20_000);
    expect(timers[2]).toBeLessThanOrEqual(25_000);
    const gathered = calls.find((call) => call.name === 'judgeCertification')!.args[1] as GatheredObservations;
    const withdrawal = calls.find(
      (call) => call.name === 'triggerCertificationEvent' && call.args[1] === 'property.withdrawn',
    )!;
    expect(Date.parse(gathered.withdrawn!.watchedUntil) - withdrawal.atMs).toBeGreaterThanOrEqual(7_000);
  });

  test('a window with less than the lead left is filled at once', async () => {
    const { handle } = await run(standIns({ certificationWindowLeft: () => 12_000 }));
    expect(await timerDurations(handle)).toHaveLength(2);
  });

  test('a window nearly over is let pass, and the next one waited for to its last seconds', async () => {
    const left = [3_000, 58_000];
    const { handle, calls } = await run(standIns({ certificationWindowLeft: () => left.shift()! }));
    // The watch; the 3 s left and a second more; the next window's 58 s less the 15 s lead; past its end.
    const timers = await timerDurations(handle);
    expect(timers.slice(1, 3)).toEqual([4_000, 43_000]);
    expect(calls.filter((call) => call.name === 'certificationWindowLeft')).toHaveLength(2);
  });

  test('a step that fails for good ends the run failed through abandonCertification, unjudged', async () => {
    const { calls, state } = await run(
      standIns({
        sendCertificationProbe: () => {
          throw ApplicationFailure.nonRetryable('the endpoint is gone', 'not_found');
        },
      }),
    );
    expect(state).toBe('failed');
    expect(names(calls)).toEqual(['prepareCertification', 'sendCertificationProbe', 'abandonCertification']);
    expect(calls.at(-1)!.args).toEqual(['crt_1', 'the endpoint is gone']);
  });

  test('each step is shown as it starts, the owner connection by its hand-off', async () => {
    const { calls } = await run(standIns());
    const steps = calls.filter((call) => call.name === 'setCertificationStep').map((call) => call.args[1] as string);
    expect(steps[0]).toBe('Preparing your corner of the sandbox');
    expect(steps).toContain('Triggering availability.updated and watching its delivery');
    expect(steps.at(-1)).toBe('Judging what the run observed and your requests');
    const handOff = calls.find((call) => call.name === 'handOffCertificationOwner')!;
    expect(handOff.args.slice(1)).toEqual([300, 'Waiting for you to confirm the owner connection handed off']);
  });
});
