import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ExpiryPlan } from '../../activities/certificate-expiry.ts';
import type { CertificateExpiryInput, certificateExpiry } from '../../workflows/certificate-expiry.ts';
import { legalDatesChangedSignal } from '../../workflows/definitions.ts';
import { SA_EXPIRES_ON, SA_STATE } from '../../workflows/search-attributes.ts';
import {
  described,
  made,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type Call,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

const DAY = 86_400_000;

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

/** A plan: the CIN lapses at `at` (the first instant of its local date). */
function waiting(at: number): Extract<ExpiryPlan, { state: 'waiting' }> {
  const on = new Date(at).toISOString().slice(0, 10);
  return {
    state: 'waiting',
    ref: 'prp-1',
    change: { on, at, identifier: { scheme: 'it-cin', value: 'IT001', valid_until: on }, publishable: false },
  };
}

/** Stand-ins whose plans are `plans` in turn (the last one from then on); the re-projection withdraws. */
function planning(plans: ExpiryPlan[], onPlan?: (plan: number) => Promise<void>): StandIns {
  let made = 0;
  return {
    async planCertificateExpiry() {
      made += 1;
      await onPlan?.(made);
      return plans[Math.min(made, plans.length) - 1]!;
    },
    applyCertificateExpiry: () => ({ before: ['partner'], after: [] }),
  };
}

async function start(standIns: StandIns, input: Partial<CertificateExpiryInput> = {}) {
  const { workflowId, calls } = worker.workflow(standIns);
  const handle = await worker.env.client.workflow.start<typeof certificateExpiry>('certificateExpiry', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ propertyId: 'prp_1', ...input }],
  });
  return { handle, calls };
}

const attributes = async (handle: Awaited<ReturnType<typeof start>>['handle']) => {
  const found = (await handle.describe()).typedSearchAttributes;
  return { state: found.get(SA_STATE), expiresOn: found.get(SA_EXPIRES_ON) };
};

describe('certificateExpiry with stand-in activities', () => {
  test('it plans for its own time, shows the date, sleeps until the lapse instant, re-projects the property for it, plans again and ends as that plan says', async () => {
    const at = (await worker.env.currentTimeMs()) + 10 * DAY;
    const plan = waiting(at);
    const { handle, calls } = await start(planning([plan, { state: 'lapsed', ref: 'prp-1' }]));
    await expect
      .poll(() => attributes(handle), { timeout: 10_000 })
      .toEqual({ state: 'waiting', expiresOn: plan.change.on });
    expect(await handle.result()).toBe('lapsed');

    expect(calls.map((c) => c.name)).toEqual([
      'planCertificateExpiry',
      'applyCertificateExpiry',
      'planCertificateExpiry',
    ]);
    const [first, apply] = calls as [Call, Call];
    expect(first.args[0]).toBe('prp_1');
    expect(Math.abs((first.args[1] as number) - first.atMs)).toBeLessThan(SLACK_MS);
    expect(apply.args[0]).toBe('prp_1');
    expect(apply.args[1] as number).toBeGreaterThanOrEqual(at);
    expect((apply.args[1] as number) - at).toBeLessThan(SLACK_MS);
    expect(apply.atMs).toBeGreaterThanOrEqual(at);
    expect(await attributes(handle)).toEqual({ state: 'lapsed', expiresOn: undefined });
  });

  test('a legalDatesChanged signal while it waits makes it plan again, and a renewed date moves the re-projection to the new date', async () => {
    const now = await worker.env.currentTimeMs();
    const { handle, calls } = await start(
      planning([waiting(now + 10 * DAY), waiting(now + 20 * DAY), { state: 'none', ref: 'prp-1' }]),
    );
    await made(calls, 1);
    await worker.env.sleep(5 * DAY);
    await handle.signal(legalDatesChangedSignal);
    await made(calls, 2);
    expect(await handle.result()).toBe('none');
    expect(calls.map((c) => c.name)).toEqual([
      'planCertificateExpiry',
      'planCertificateExpiry',
      'applyCertificateExpiry',
      'planCertificateExpiry',
    ]);
    expect(calls[2]!.args[1] as number).toBeGreaterThanOrEqual(now + 20 * DAY);
    expect(calls[1]!.atMs - now).toBeGreaterThanOrEqual(5 * DAY);
    expect(calls[1]!.atMs - now).toBeLessThan(10 * DAY);
  });

  test('a deleted property ends it at once, with no timer and SvcState deleted', async () => {
    const { handle, calls } = await start(planning([{ state: 'deleted' }]));
    expect(await handle.result()).toBe('deleted');
    expect(described(calls)).toEqual([expect.stringMatching(/^planCertificateExpiry\("prp_1", \d+\)$/)]);
    expect(await timerDurations(handle)).toEqual([]);
    expect((await attributes(handle)).state).toBe('deleted');
  });

  test('a signal that arrives while the plan is read makes it read the plan again rather than end', async () => {
    let workflowId = '';
    const standIns = planning([{ state: 'none', ref: 'prp-1' }], async (plan) => {
      if (plan === 1) await worker.env.client.workflow.getHandle(workflowId).signal(legalDatesChangedSignal);
    });
    const { handle, calls } = await start(standIns);
    workflowId = handle.workflowId;
    expect(await handle.result()).toBe('none');
    expect(calls.map((c) => c.name)).toEqual(['planCertificateExpiry', 'planCertificateExpiry']);
  });

  test('after plansPerRun plans it continues as new, and the new run plans again', async () => {
    const at = (await worker.env.currentTimeMs()) + DAY;
    const { handle, calls } = await start(planning([waiting(at), { state: 'none', ref: 'prp-1' }]), {
      plansPerRun: 1,
    });
    expect(await handle.result()).toBe('none');
    expect(calls.map((c) => c.name)).toEqual([
      'planCertificateExpiry',
      'applyCertificateExpiry',
      'planCertificateExpiry',
    ]);
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
  });
});
