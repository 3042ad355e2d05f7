/**
 * The rules judged from the answers the channel's receiver gave: the deliveries of each triggered
 * event type and the run's own signature probes; and the owner connection it confirmed. Pure.
 */
import { ANSWER_WITHIN_MS } from './limits.ts';
import { failed, is2xx, passed, relativeTo } from './observed.ts';
import type { ObservedAttempt, OwnerConnectObservation, ProbeAnswer, RuleVerdict } from './rules.ts';

/** Why an attempt fails the rule, or null when it was answered 2xx in time. */
function attemptFailure(type: string, attempt: ObservedAttempt | null): string | null {
  if (!attempt) return `${type}: no delivery attempt was observed`;
  const head = `${type} ${attempt.eventId}`;
  if (attempt.status === null)
    return `${head}: no answer (${attempt.error ?? 'no response'}) after ${attempt.durationMs} ms`;
  if (!is2xx(attempt.status)) return `${head}: answered ${attempt.status} in ${attempt.durationMs} ms`;
  if (attempt.durationMs > ANSWER_WITHIN_MS)
    return `${head}: answered ${attempt.status} in ${attempt.durationMs} ms, over ${ANSWER_WITHIN_MS} ms`;
  return null;
}

/** Every triggered type's first attempt answered 2xx within ANSWER_WITHIN_MS. */
export function answersEachEventType(attempts: Record<string, ObservedAttempt | null>): RuleVerdict {
  const entries = Object.entries(attempts);
  if (entries.length === 0) return failed('No event type was triggered, so no delivery could be observed.');
  const failures = entries.flatMap(([type, attempt]) => attemptFailure(type, attempt) ?? []);
  if (failures.length > 0)
    return failed(
      `${failures.length} of ${entries.length} types not answered 2xx within ${ANSWER_WITHIN_MS} ms: ${failures.join('; ')}.`,
    );
  let slowest: [string, ObservedAttempt] = entries[0] as [string, ObservedAttempt];
  for (const entry of entries as [string, ObservedAttempt][])
    if (entry[1].durationMs > slowest[1].durationMs) slowest = entry;
  return passed(
    `${entries.length} types answered 2xx, slowest ${slowest[1].durationMs} ms (${slowest[0]} ${slowest[1].eventId}).`,
  );
}

/** A probe the receiver must refuse: it answered, and not 2xx. A timeout is no refusal. */
export function refusesProbe(probe: ProbeAnswer, what: string): RuleVerdict {
  const head = `Probe ${probe.eventId} (${what})`;
  if (probe.status === null)
    return failed(
      `${head}: no answer (${probe.error ?? 'no response'}) after ${probe.durationMs} ms; a timeout or no answer is not a refusal.`,
    );
  if (is2xx(probe.status)) return failed(`${head} was accepted: answered ${probe.status} in ${probe.durationMs} ms.`);
  return passed(`${head} was refused: answered ${probe.status} in ${probe.durationMs} ms.`);
}

/** The probe signed `v1,<wrong> v1,<right>` answered 2xx within ANSWER_WITHIN_MS. */
export function acceptsRotation(probe: ProbeAnswer): RuleVerdict {
  const head = `Probe ${probe.eventId} (two signatures, the valid one second)`;
  if (probe.status === null)
    return failed(`${head}: no answer (${probe.error ?? 'no response'}) after ${probe.durationMs} ms.`);
  if (!is2xx(probe.status))
    return failed(`${head} was refused: answered ${probe.status} in ${probe.durationMs} ms; any matching v1 must do.`);
  if (probe.durationMs > ANSWER_WITHIN_MS)
    return failed(`${head}: answered ${probe.status} in ${probe.durationMs} ms, over ${ANSWER_WITHIN_MS} ms.`);
  return passed(`${head} was accepted: answered ${probe.status} in ${probe.durationMs} ms.`);
}

/** The token the run handed off was confirmed, at the latest when its window ended. */
export function completesOwnerConnect(connect: OwnerConnectObservation | null): RuleVerdict {
  if (!connect) return failed('The run handed off no owner-connect token, so no confirmation could be observed.');
  const head = `Token ${connect.tokenId} for owner ${connect.ownerId}`;
  const handedOff = `handed off at ${connect.handedOffAt.toISOString()}`;
  if (!connect.confirmedAt)
    return failed(
      `${head}, ${handedOff}, was not confirmed (PUT /owners/${connect.ownerId}/connection) during the run; its window ends ${connect.windowEndsAt.toISOString()}.`,
    );
  const confirmed = `confirmed ${relativeTo(connect.confirmedAt, connect.handedOffAt)} the hand-off`;
  if (connect.confirmedAt.getTime() > connect.windowEndsAt.getTime())
    return failed(
      `${head} was ${confirmed}, ${relativeTo(connect.confirmedAt, connect.windowEndsAt)} its window ended.`,
    );
  return passed(`${head} was ${confirmed}, ${relativeTo(connect.confirmedAt, connect.windowEndsAt)} its window ends.`);
}
