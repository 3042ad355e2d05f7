/**
 * honours_retry_after, judged from the channel's requests around the rate window the run filled:
 * a 429 `rate_limited` outside `/sandbox/`, no repeat of that request before the window ended, and
 * the request made again once it had. Pure.
 */
import {
  failed,
  isSandboxRoute,
  listed,
  passed,
  relativeTo,
  statusText,
  targetOf,
  type RequestTarget,
} from './observed.ts';
import type { CertificationObservations, ObservedRequest, RuleVerdict } from './rules.ts';

/** A request as the rule compares them: method and path with its query. */
function keyOf(target: RequestTarget): string {
  return `${target.method} ${target.shown}`;
}

/** `Retry-After` as the service answered it at `at`: whole seconds left in the window, at least 1. */
function retryAfterAt(at: Date, windowEndsAt: Date): number {
  return Math.max(1, Math.ceil((windowEndsAt.getTime() - at.getTime()) / 1000));
}

export function honoursRetryAfter(
  throttle: CertificationObservations['throttle'],
  requests: readonly ObservedRequest[],
): RuleVerdict {
  if (!throttle) return failed('The run did not fill the rate window, so no 429 could be observed.');
  const { filledAt, windowEndsAt } = throttle;
  const end = windowEndsAt.getTime();
  const outside = requests.map(targetOf).filter((target) => !isSandboxRoute(target.route));
  const time = (target: RequestTarget) => target.request.receivedAt.getTime();
  const firstRefusals = new Map<string, RequestTarget>();
  for (const target of outside) {
    const refused = target.request.status === 429 && target.request.code === 'rate_limited';
    if (refused && time(target) >= filledAt.getTime() && time(target) < end && !firstRefusals.has(keyOf(target)))
      firstRefusals.set(keyOf(target), target);
  }
  const window = `between filling the window (${filledAt.toISOString()}) and its end (${windowEndsAt.toISOString()})`;
  if (firstRefusals.size === 0) return failed(`No request outside /sandbox/ was answered 429 rate_limited ${window}.`);
  const early: string[] = [];
  let back: { refusal: RequestTarget; again: RequestTarget } | null = null;
  for (const [key, refusal] of firstRefusals) {
    const same = outside.filter((target) => keyOf(target) === key && time(target) > time(refusal));
    for (const repeat of same.filter((target) => time(target) < end))
      early.push(
        `${key} ${statusText(repeat.request)}, ${relativeTo(repeat.request.receivedAt, refusal.request.receivedAt)} its 429`,
      );
    const again = same.find((target) => time(target) >= end);
    if (again && !back) back = { refusal, again };
  }
  const shown = back?.refusal ?? firstRefusals.values().next().value!;
  const head = `${keyOf(shown)} answered 429 rate_limited at ${shown.request.receivedAt.toISOString()} (Retry-After ${retryAfterAt(shown.request.receivedAt, windowEndsAt)} s; the window ended ${windowEndsAt.toISOString()})`;
  if (early.length > 0) return failed(`${head}; repeated before the window ended: ${listed(early)}.`);
  if (!back) return failed(`${head}; not made again after the window ended.`);
  return passed(
    `${head}; made again ${relativeTo(back.again.request.receivedAt, windowEndsAt)} the window ended, answered ${statusText(back.again.request)}.`,
  );
}
