// The contract's retry schedule. Rule:
// - after the n-th failed attempt the next one waits NOMINAL_DELAYS_MS[n-1] (12 h once the list is
//   used up), scaled by a jitter factor 0.8 + 0.4 * random, random in [0, 1), rounded to whole ms;
// - each delay is counted from the end of the failed attempt, and a retry is made only when its
//   planned time is at most RETRY_SPAN_MS after the first attempt started; otherwise the schedule
//   has ended and the endpoint is suspended (`failing`).
// Nominal offsets are 1 m, 6 m, 36 m, 2 h 36 m, 8 h 36 m, then every 12 h up to 68 h 36 m: ten
// retries. Jitter moves the count between nine (all +20 %) and eleven (all -20 %).

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const RETRY_SPAN_MS = 3 * 24 * HOUR_MS;
export const NOMINAL_DELAYS_MS: readonly number[] = [
  1 * MINUTE_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  6 * HOUR_MS,
];
export const STEADY_DELAY_MS = 12 * HOUR_MS;
export const JITTER_FRACTION = 0.2;

export function nominalRetryDelayMs(attemptsMade: number): number {
  if (!Number.isSafeInteger(attemptsMade) || attemptsMade < 1)
    throw new RangeError('attemptsMade must be an integer >= 1');
  return NOMINAL_DELAYS_MS[attemptsMade - 1] ?? STEADY_DELAY_MS;
}

/** Jittered wait after `attemptsMade` failed attempts; `random` in [0, 1) maps to -20 % .. +20 %. */
export function nextRetryDelayMs(attemptsMade: number, random: number): number {
  if (!(random >= 0 && random < 1)) throw new RangeError('random must be in [0, 1)');
  const factor = 1 - JITTER_FRACTION + 2 * JITTER_FRACTION * random;
  return Math.round(nominalRetryDelayMs(attemptsMade) * factor);
}

/**
 * What a delivery does after a failed attempt: the delay before the next attempt, or `null` when
 * that attempt would fall past the retry span and the endpoint is to be suspended.
 */
export function planNextRetry(input: {
  attemptsMade: number;
  elapsedSinceFirstAttemptMs: number;
  random: number;
}): number | null {
  const delayMs = nextRetryDelayMs(input.attemptsMade, input.random);
  return input.elapsedSinceFirstAttemptMs + delayMs <= RETRY_SPAN_MS ? delayMs : null;
}

/** Offsets of every retry from the first attempt, assuming attempts take no time. */
export function planRetries(random: () => number): number[] {
  const offsets: number[] = [];
  let elapsed = 0;
  for (let attemptsMade = 1; ; attemptsMade += 1) {
    const delayMs = planNextRetry({ attemptsMade, elapsedSinceFirstAttemptMs: elapsed, random: random() });
    if (delayMs === null) return offsets;
    elapsed += delayMs;
    offsets.push(elapsed);
  }
}

/**
 * The longest one try of an attempt may take: the receiver's 10 s, signing and the database around
 * it (the attempt activity's start-to-close time). An operator's retry waits this long and a margin.
 */
export const ATTEMPT_LIMIT_MS = 30_000;

// The schedule in words, for every text that states it (the served description, the Temporal UI's
// details, the suspension e-mail); test/domain/retry-schedule-text.test.ts checks the docs' and ops
// files' sentences against the same constants.

const UNITS = [
  { ms: 24 * HOUR_MS, short: 'd', long: 'day' },
  { ms: HOUR_MS, short: 'h', long: 'hour' },
  { ms: MINUTE_MS, short: 'm', long: 'minute' },
] as const;

/** A whole number of days, hours or minutes in words, e.g. `short` "12 h", `long` "12 hours". */
export function describeDuration(ms: number, style: 'short' | 'long'): string {
  const unit = UNITS.find((u) => ms >= u.ms && ms % u.ms === 0);
  if (unit === undefined) throw new RangeError(`${ms} ms is not a whole number of minutes`);
  const count = ms / unit.ms;
  return style === 'short' ? `${count} ${unit.short}` : `${count} ${unit.long}${count === 1 ? '' : 's'}`;
}

/** The delays in words, e.g. "1 m, 5 m, then every 12 h" (`long`: "1 minute, 5 minutes, then every 12 hours"). */
export function describeSchedule(style: 'short' | 'long'): string {
  const delays = NOMINAL_DELAYS_MS.map((ms) => describeDuration(ms, style)).join(', ');
  return `${delays}, then every ${describeDuration(STEADY_DELAY_MS, style)}`;
}

/** The retry span in words, always long, e.g. "3 days". */
export function describeRetrySpan(): string {
  return describeDuration(RETRY_SPAN_MS, 'long');
}

/** The jitter in words, e.g. "±20 %". */
export function describeJitter(): string {
  return `±${Math.round(JITTER_FRACTION * 100)} %`;
}
