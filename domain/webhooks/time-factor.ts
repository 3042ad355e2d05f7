import { describeRetrySpan, RETRY_SPAN_MS } from './retry-schedule.ts';

// Sandbox fast retries: an endpoint's deliveries run the contract's retry schedule unchanged
// (delays, jitter, span, suspension) on a clock that runs SANDBOX_TIME_FACTOR times faster while
// they wait, so the whole span passes in minutes. Attempts themselves are not compressed: an
// attempt takes the time its receiver takes, as in production, and counts towards the span at
// that length; only the waits between attempts are divided by the factor.

/** How many times faster a fast-retry endpoint's schedule runs: 3 days pass in 5 minutes. */
export const SANDBOX_TIME_FACTOR = 864;

/** The real wait for a retry planned `delayMs` on the schedule's clock; never under 1 ms. */
export function compressedDelayMs(delayMs: number, factor: number): number {
  return factor === 1 ? delayMs : Math.max(1, Math.round(delayMs / factor));
}

/**
 * The time since the first attempt on the schedule's clock: real time spent in attempts as it
 * was, real time spent waiting multiplied by the factor. With factor 1, the real time.
 */
export function scheduleElapsedMs(realElapsedMs: number, realWaitedMs: number, factor: number): number {
  return realElapsedMs + (factor - 1) * realWaitedMs;
}

/** The retry span as a fast-retry endpoint lives it, in whole seconds (300 for 3 days at 864). */
export function compressedSpanSeconds(factor = SANDBOX_TIME_FACTOR): number {
  return Math.round(RETRY_SPAN_MS / factor / 1000);
}

/** The factor in words, for the description: "864 times faster: the retry span (3 days) passes in about 300 s". */
export function describeTimeFactor(factor = SANDBOX_TIME_FACTOR): string {
  return `${factor} times faster: the retry span (${describeRetrySpan()}) passes in about ${compressedSpanSeconds(factor)} s`;
}
