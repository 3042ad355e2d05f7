import { finishCertificationRun } from '../db/certification-runs.ts';
import { sandboxRequestsPage, type LoggedRequest } from '../db/sandbox-requests.ts';
import {
  judge,
  runPassed,
  type CertificationObservations,
  type ObservedAttempt,
  type ObservedRequest,
  type ProbeAnswer,
} from '../domain/certification/rules.ts';
import { pendingRows, type CertificationState } from '../domain/certification/runs.ts';
import type { ServiceDeps } from './deps.ts';
import type { RunRef } from './certification-steps.ts';

/**
 * The run's last step: what it gathered (as the workflow holds it, instants as RFC 3339 text) and
 * the channel's requests from the request log between the run's start and now, oldest first,
 * judged (domain/certification/rules.ts); the rows and the state are stored with the run.
 */

/** CertificationObservations without the requests, instants as text: what the workflow carries. */
export interface GatheredObservations {
  attempts: Record<string, ObservedAttempt | null>;
  wrongSecret: ProbeAnswer;
  staleTimestamp: ProbeAnswer;
  rotation: ProbeAnswer;
  propertyUpdated: { propertyId: string; at: string } | null;
  availabilityUpdated: { propertyId: string; from: string; to: string; at: string } | null;
  withdrawn: { propertyId: string; at: string; watchedUntil: string } | null;
  throttle: { filledAt: string; windowEndsAt: string } | null;
  ownerConnect: {
    ownerId: string;
    tokenId: string;
    handedOffAt: string;
    confirmedAt: string | null;
    windowEndsAt: string;
  } | null;
}

/** Requests read from the log a page at a time, newest first, up to this many in all. */
const REQUEST_PAGE = 1_000;
const REQUESTS_MAX = 50_000;

/** The channel's logged requests received at or after `from`, oldest first. */
async function requestsSince(
  deps: Pick<ServiceDeps, 'orm'>,
  channelId: string,
  from: Date,
): Promise<ObservedRequest[]> {
  const em = deps.orm.em.fork();
  const found: LoggedRequest[] = [];
  let before: { receivedAt: Date; id: number } | null = null;
  while (found.length < REQUESTS_MAX) {
    const page = await sandboxRequestsPage(em, channelId, {
      from,
      before,
      status: null,
      code: null,
      limit: REQUEST_PAGE,
    });
    found.push(...page);
    const last = page.at(-1);
    if (!last || page.length < REQUEST_PAGE) break;
    before = { receivedAt: last.receivedAt, id: last.id };
  }
  return found.reverse().map((request) => ({
    method: request.method,
    path: request.path,
    status: request.status,
    code: request.code,
    receivedAt: request.receivedAt,
  }));
}

const at = (text: string) => new Date(text);

/** The judge's input: the gathered observations with their instants, and the requests. */
export function observationsOf(gathered: GatheredObservations, requests: ObservedRequest[]): CertificationObservations {
  const { propertyUpdated, availabilityUpdated, withdrawn, throttle, ownerConnect } = gathered;
  return {
    attempts: gathered.attempts,
    wrongSecret: gathered.wrongSecret,
    staleTimestamp: gathered.staleTimestamp,
    rotation: gathered.rotation,
    propertyUpdated: propertyUpdated && { propertyId: propertyUpdated.propertyId, at: at(propertyUpdated.at) },
    availabilityUpdated: availabilityUpdated && { ...availabilityUpdated, at: at(availabilityUpdated.at) },
    withdrawn: withdrawn && {
      propertyId: withdrawn.propertyId,
      at: at(withdrawn.at),
      watchedUntil: at(withdrawn.watchedUntil),
    },
    throttle: throttle && { filledAt: at(throttle.filledAt), windowEndsAt: at(throttle.windowEndsAt) },
    ownerConnect: ownerConnect && {
      ownerId: ownerConnect.ownerId,
      tokenId: ownerConnect.tokenId,
      handedOffAt: at(ownerConnect.handedOffAt),
      confirmedAt: ownerConnect.confirmedAt === null ? null : at(ownerConnect.confirmedAt),
      windowEndsAt: at(ownerConnect.windowEndsAt),
    },
    requests,
  };
}

/** Judges the run and stores its rows and state (`passed` when no row failed); answers the state. */
export async function judgeRun(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'log'>,
  run: RunRef & { channelId: string },
  gathered: GatheredObservations,
): Promise<CertificationState> {
  const requests = await requestsSince(deps, run.channelId, new Date(run.startedAt));
  const rows = judge(observationsOf(gathered, requests));
  const state = runPassed(rows) ? 'passed' : 'failed';
  await finishCertificationRun(deps.orm.em.fork(), run.certificationId, {
    state,
    rows,
    step: null,
    finishedAt: deps.clock.now(),
  });
  deps.log.info('certification run judged', { certificationId: run.certificationId, state });
  return state;
}

/** Ends a run that could not go on as `failed`, its rows unjudged, the step saying why. */
export async function abandonRun(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'log'>,
  certificationId: string,
  reason: string,
): Promise<void> {
  const rows = pendingRows().map((row) => ({ ...row, evidence: 'not judged: the run stopped before its end' }));
  await finishCertificationRun(deps.orm.em.fork(), certificationId, {
    state: 'failed',
    rows,
    step: `The run stopped: ${reason}`.slice(0, 500),
    finishedAt: deps.clock.now(),
  });
  deps.log.warn('certification run stopped before its end', { certificationId, reason });
}
