import { CancellationScope, isCancellation, patched, proxyActivities, sleep, upsertMemo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { GatheredObservations } from '../services/certification-judge.ts';
import type { RunRef, TriggerSeen } from '../services/certification-steps.ts';

// Every step is an activity that records what it did; the waits between them are workflow
// timers, and every decision reads only activity answers and workflow time: a replay takes the
// same path. A step that throws after its retries ends the run `failed` (abandonCertification)
// rather than leaving it `running`, which would refuse the channel's next run.
const quick = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});
const watching = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

export interface CertificationTiming {
  /** How long the run watches after the withdrawal before anything re-distributes the property. */
  withdrawnWatchMs: number;
  /** The throttle starts when the rate window has at most this long left. */
  throttleLeadMs: number;
  /** With less than this left, too little remains to see a 429 and a wait: the next window is used. */
  throttleLeastMs: number;
  /** After the filled window ends, how long the run lets the channel read again. */
  afterWindowMs: number;
}

export const CERTIFICATION_TIMING: CertificationTiming = {
  withdrawnWatchMs: 10_000,
  throttleLeadMs: 15_000,
  throttleLeastMs: 8_000,
  afterWindowMs: 10_000,
};

export interface CertificationInput extends RunRef {
  channelId: string;
  /** The types triggered, in order (services/certification.ts picks it: cheap preconditions). */
  types: string[];
  /** How long the run waits for the owner-connect confirmation. */
  connectWaitSeconds: number;
  timing?: Partial<CertificationTiming>;
}

/**
 * A sandbox certification run (workflow id `certification-<id>`), started by
 * `POST /sandbox/certifications`: probes, each event type triggered and its delivery watched, a
 * provoked 429, an owner-connect hand-off; then the channel's own requests and all of it judged
 * (domain/certification/rules.ts) and stored. Answers the run's state.
 */
export async function certificationRun(input: CertificationInput): Promise<string> {
  const run: RunRef = {
    certificationId: input.certificationId,
    channel: input.channel,
    webhookId: input.webhookId,
    startedAt: input.startedAt,
  };
  const step = async (text: string) => {
    upsertMemo({ step: text });
    await quick.setCertificationStep(run.certificationId, text);
  };
  try {
    const gathered = await gather(input, run, step);
    await step('Judging what the run observed and your requests');
    const state = await quick.judgeCertification({ ...run, channelId: input.channelId }, gathered);
    upsertMemo({ step: null, state });
    return state;
  } catch (error) {
    // An operator's cancellation ends the run too: its record is ended outside the cancelled scope.
    const reason = isCancellation(error)
      ? 'cancelled by an operator'
      : error instanceof Error && error.cause instanceof Error
        ? error.cause.message
        : String(error);
    await CancellationScope.nonCancellable(() => quick.abandonCertification(run.certificationId, reason));
    upsertMemo({ step: null, state: 'failed' });
    if (isCancellation(error)) throw error;
    return 'failed';
  }
}

type Step = (text: string) => Promise<void>;

async function gather(input: CertificationInput, run: RunRef, step: Step): Promise<GatheredObservations> {
  const timing = { ...CERTIFICATION_TIMING, ...input.timing };
  await step('Preparing your corner of the sandbox');
  await quick.prepareCertification(run);
  await step('Sending probes: a wrong secret, a stale timestamp, a rotation signature');
  const wrongSecret = await quick.sendCertificationProbe(run, 'wrong_secret');
  const staleTimestamp = await quick.sendCertificationProbe(run, 'stale_timestamp');
  const rotation = await quick.sendCertificationProbe(run, 'rotation');
  const attempts: GatheredObservations['attempts'] = {};
  const seen: Record<string, TriggerSeen> = {};
  let withdrawn: GatheredObservations['withdrawn'] = null;
  for (const type of input.types) {
    await step(`Triggering ${type} and watching its delivery`);
    const triggered = await watching.triggerCertificationEvent(run, type, true);
    seen[type] = triggered;
    attempts[type] = triggered.attempt;
    const { answeredAt, subject } = triggered;
    if (type === 'property.withdrawn' && answeredAt !== null && subject.id !== null) {
      await step('Watching that nothing below the withdrawn property is read');
      await sleep(timing.withdrawnWatchMs);
      withdrawn = { propertyId: subject.id, at: answeredAt, watchedUntil: new Date(Date.now()).toISOString() };
    }
  }
  const throttle = await provoke429(run, step, timing);
  const ownerConnect = await connectOwner(input, run);
  const updated = seen['property.updated'];
  const availability = seen['availability.updated'];
  return {
    attempts,
    wrongSecret,
    staleTimestamp,
    rotation,
    propertyUpdated:
      updated?.answeredAt && updated.subject.id ? { propertyId: updated.subject.id, at: updated.answeredAt } : null,
    availabilityUpdated:
      availability?.answeredAt && availability.subject.id && availability.subject.from && availability.subject.to
        ? {
            propertyId: availability.subject.id,
            from: availability.subject.from,
            to: availability.subject.to,
            at: availability.answeredAt,
          }
        : null,
    withdrawn,
    throttle,
    ownerConnect,
  };
}

/**
 * Waits until the rate window has at most `throttleLeadMs` left, fills it, triggers
 * `property.updated` so the receiver reads (and is refused), then waits past the window's end.
 */
async function provoke429(run: RunRef, step: Step, timing: CertificationTiming) {
  await step('Waiting for the end of a rate window to provoke a 429');
  let left = await quick.certificationWindowLeft();
  // A window nearly over leaves no time for a 429 and a wait: the next one is used. (Patched: a
  // run started before this rule replays without it.)
  if (left < timing.throttleLeastMs && patched('throttle-next-window')) {
    await sleep(left + 1_000);
    left = await quick.certificationWindowLeft();
  }
  if (left > timing.throttleLeadMs) await sleep(left - timing.throttleLeadMs);
  const fill = await quick.fillCertificationWindow(run);
  const endsAt = Date.now() + fill.leftMs;
  await step('Your rate window is full: read property.updated, honour the 429 and its Retry-After');
  await watching.triggerCertificationEvent(run, 'property.updated', false);
  await sleep(Math.max(0, endsAt + timing.afterWindowMs - Date.now()));
  return { filledAt: fill.filledAt, windowEndsAt: fill.windowEndsAt };
}

async function connectOwner(input: CertificationInput, run: RunRef): Promise<GatheredObservations['ownerConnect']> {
  const text = 'Waiting for you to confirm the owner connection handed off';
  upsertMemo({ step: text });
  const made = await quick.handOffCertificationOwner(run, input.connectWaitSeconds, text);
  const confirmedAt = await proxyActivities<Activities>({
    startToCloseTimeout: `${input.connectWaitSeconds + 60} seconds`,
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
  }).awaitCertificationOwner(made.tokenId, made.waitUntil);
  return {
    ownerId: made.ownerId,
    tokenId: made.tokenId,
    handedOffAt: made.handedOffAt,
    confirmedAt,
    windowEndsAt: made.windowEndsAt,
  };
}
