import { decodeJwt } from 'jose';
import { firstDeliveryAttempt, setCertificationStep } from '../db/certification-runs.ts';
import { findChannelByName, type Channel } from '../db/channels.ts';
import { addToWindow, WINDOW_MS, windowAt } from '../db/counters.ts';
import { findToken } from '../db/owner-connect.ts';
import { ANSWER_WITHIN_MS, type ObservedAttempt } from '../domain/certification/rules.ts';
import { PING_EVENT_TYPE, scopesForPatterns } from '../domain/events.ts';
import type { ServiceDeps } from './deps.ts';
import { startOwnerConnect } from './owner-connect/hand-off.ts';
import { distributeView, ensureView, viewDistributed, viewRef } from './sandbox-trigger-view.ts';
import { trigger, type TriggerType } from './sandbox-trigger.ts';

/**
 * The steps of a certification run that act (activities/certification.ts runs them for
 * workflows/certification.ts): the channel's trigger corner shown to it, an event triggered and
 * its delivery's first attempt watched, the channel's rate window filled, an owner-connect token
 * handed off and its confirmation awaited. Instants cross to the workflow as RFC 3339 text.
 */

/** What a run knows of itself, as each step is given it. */
export interface RunRef {
  certificationId: string;
  channel: string;
  webhookId: string;
  /** RFC 3339: deliveries and requests are looked for from here. */
  startedAt: string;
}

/** Beyond the receiver's own ANSWER_WITHIN_MS: the dispatch and the record of the attempt. */
const OBSERVE_MARGIN_MS = 20_000;
const OBSERVE_POLL_MS = 500;
/** The endpoint under test subscribes to every type: the run triggers each with the scopes that read them all. */
const EVERY_SCOPE = [...scopesForPatterns(['*']), 'manage:webhooks'];

async function channelOf(deps: Pick<ServiceDeps, 'orm'>, name: string): Promise<Channel> {
  const channel = await findChannelByName(deps.orm.em.fork(), name);
  if (!channel) throw new Error(`the certification run's channel ${name} is gone`);
  return channel;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function setStep(
  deps: Pick<ServiceDeps, 'orm'>,
  certificationId: string,
  step: string,
  handOff: Parameters<typeof setCertificationStep>[3] = null,
): Promise<void> {
  await setCertificationStep(deps.orm.em.fork(), certificationId, step, handOff);
}

/** The channel's corner of the sandbox (services/sandbox-trigger-view.ts), made and shown to it. */
export async function prepareCorner(deps: ServiceDeps, run: RunRef): Promise<void> {
  const channel = await channelOf(deps, run.channel);
  await ensureView(deps, channel);
  if (!(await viewDistributed(deps, channel))) await distributeView(deps, channel, true);
}

/** An event the run triggered and what its delivery to the endpoint under test did. */
export interface TriggerSeen {
  type: string;
  /** The first attempt, null when none was recorded in time (or nothing was delivered). */
  attempt: ObservedAttempt | null;
  /** When the attempt was answered (RFC 3339), null without one. */
  answeredAt: string | null;
  /** The record the event names (`data.id`), and for `availability.updated` its range. */
  subject: { id: string | null; from: string | null; to: string | null };
}

/**
 * Triggers `type` through the trigger service (services/sandbox-trigger.ts) and, with `observe`,
 * waits for the first attempt of its delivery to the endpoint under test, up to ANSWER_WITHIN_MS
 * and a margin; `webhook.ping` is answered by the trigger itself. `beat` keeps the activity alive.
 */
export async function triggerAndObserve(
  deps: ServiceDeps,
  run: RunRef,
  type: TriggerType,
  options: { observe: boolean; beat?: () => void },
): Promise<TriggerSeen> {
  const channel = await channelOf(deps, run.channel);
  const outcome = await trigger(deps, channel, EVERY_SCOPE, type);
  if (type === PING_EVENT_TYPE) {
    const ping = outcome.pings.find((answer) => answer.webhookId === run.webhookId);
    if (!ping) return { type, attempt: null, answeredAt: null, subject: { id: null, from: null, to: null } };
    const attempt = { type, eventId: ping.eventId, status: ping.statusCode, durationMs: ping.durationMs };
    return {
      type,
      attempt: { ...attempt, error: ping.statusCode === null ? ping.error : null },
      answeredAt: deps.clock.now().toISOString(),
      subject: { id: run.webhookId, from: null, to: null },
    };
  }
  const event = outcome.events.filter((candidate) => candidate.type === type).at(-1);
  const seen: TriggerSeen = {
    type,
    attempt: null,
    answeredAt: null,
    subject: { id: event?.id ?? null, from: null, to: null },
  };
  if (!event || !options.observe) return seen;
  const em = deps.orm.em.fork();
  const until = Date.now() + ANSWER_WITHIN_MS + OBSERVE_MARGIN_MS;
  for (;;) {
    const first = await firstDeliveryAttempt(em, run.webhookId, event.eventId, new Date(run.startedAt));
    if (first) {
      const data = (JSON.parse(first.payload) as { data?: Record<string, unknown> }).data ?? {};
      const text = (value: unknown) => (typeof value === 'string' ? value : null);
      return {
        type,
        attempt: {
          type,
          eventId: event.eventId,
          status: first.status,
          durationMs: first.durationMs,
          error: first.error,
        },
        answeredAt: new Date(first.attemptedAt.getTime() + first.durationMs).toISOString(),
        subject: { id: text(data.id) ?? event.id, from: text(data.from), to: text(data.to) },
      };
    }
    if (Date.now() >= until) return seen;
    options.beat?.();
    await pause(OBSERVE_POLL_MS);
  }
}

/** Milliseconds left in the current one-minute rate window (db/counters.ts), by the service's clock. */
export function windowLeftMs(deps: Pick<ServiceDeps, 'clock'>): number {
  const now = deps.clock.now();
  return windowAt(now).windowStart.getTime() + WINDOW_MS - now.getTime();
}

/**
 * Fills the channel's current rate window to its limit, as if it had made that many requests:
 * its next request in the window is refused 429 `rate_limited`. Answers when, and when the window ends.
 */
export async function fillWindow(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  run: RunRef,
): Promise<{ filledAt: string; windowEndsAt: string; leftMs: number }> {
  const channel = await channelOf(deps, run.channel);
  const now = deps.clock.now();
  await addToWindow(deps.orm.em.fork(), `channel:${channel.id}`, channel.rateLimitPerMinute, now);
  const endsAt = windowAt(now).windowStart.getTime() + WINDOW_MS;
  return { filledAt: now.toISOString(), windowEndsAt: new Date(endsAt).toISOString(), leftMs: endsAt - now.getTime() };
}

/** The hand-off the run made: the token's owner and id, and until when the run waits. */
export interface HandOffMade {
  ownerId: string;
  tokenId: string;
  handedOffAt: string;
  /** The end of the token's confirmation window. */
  windowEndsAt: string;
  /** When the run stops waiting: `connectWaitSeconds` after the hand-off, within the window. */
  waitUntil: string;
}

/**
 * Issues an owner-connect token for the corner's owner the way the host pages' Connect does
 * (services/owner-connect/hand-off.ts), and shows it on the run (`hand_off`) with `step`.
 */
export async function handOffOwner(
  deps: ServiceDeps,
  run: RunRef,
  connectWaitSeconds: number,
  step: string,
): Promise<HandOffMade> {
  const channel = await channelOf(deps, run.channel);
  await prepareCorner(deps, run);
  const answer = await startOwnerConnect(deps, { ownerRef: viewRef(channel.id, 'owner'), channel: channel.name });
  const claims = decodeJwt(answer.token);
  const record = await findToken(deps.orm.em.fork(), String(claims.jti));
  if (!record) throw new Error('the owner-connect token just issued has no record');
  const handedOffAt = deps.clock.now();
  const waitUntil = new Date(
    Math.min(handedOffAt.getTime() + connectWaitSeconds * 1000, record.confirmUntil.getTime()),
  );
  await setStep(deps, run.certificationId, step, {
    ownerId: record.ownerExternalId,
    token: answer.token,
    redirectUrl: answer.redirect_url,
    windowEndsAt: waitUntil,
  });
  return {
    ownerId: record.ownerExternalId,
    tokenId: record.jti,
    handedOffAt: handedOffAt.toISOString(),
    windowEndsAt: record.confirmUntil.toISOString(),
    waitUntil: waitUntil.toISOString(),
  };
}

/** Waits until the token is confirmed or `waitUntil` passes: when it was confirmed (RFC 3339), or null. */
export async function awaitConfirmation(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  tokenId: string,
  waitUntil: string,
  beat?: () => void,
): Promise<string | null> {
  const em = deps.orm.em.fork();
  const until = new Date(waitUntil).getTime();
  for (;;) {
    em.clear();
    const token = await findToken(em, tokenId);
    if (token?.state === 'confirmed' && token.connectedAt) return token.connectedAt.toISOString();
    if (deps.clock.now().getTime() >= until) return null;
    beat?.();
    await pause(1_000);
  }
}
