import { describe, expect, test } from 'vitest';
import {
  nextRetryDelayMs,
  nominalRetryDelayMs,
  planNextRetry,
  planRetries,
  RETRY_SPAN_MS,
} from '../../domain/webhooks/retry-schedule.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MIDDLE = 0.5;
const HIGHEST = 1 - Number.EPSILON;

describe('nominal schedule', () => {
  test('spans three days', () => {
    expect(RETRY_SPAN_MS).toBe(72 * HOUR);
  });

  test.each([
    [1, 1 * MINUTE],
    [2, 5 * MINUTE],
    [3, 30 * MINUTE],
    [4, 2 * HOUR],
    [5, 6 * HOUR],
    [6, 12 * HOUR],
    [7, 12 * HOUR],
    [40, 12 * HOUR],
  ])('after %i failed attempts waits %i ms', (attemptsMade, delay) => {
    expect(nominalRetryDelayMs(attemptsMade)).toBe(delay);
    expect(nextRetryDelayMs(attemptsMade, MIDDLE)).toBe(delay);
  });

  test('retries ten times at the nominal offsets, the last before 72 h', () => {
    const minutes = (h: number, m: number) => h * HOUR + m * MINUTE;
    expect(planRetries(() => MIDDLE)).toEqual([
      minutes(0, 1),
      minutes(0, 6),
      minutes(0, 36),
      minutes(2, 36),
      minutes(8, 36),
      minutes(20, 36),
      minutes(32, 36),
      minutes(44, 36),
      minutes(56, 36),
      minutes(68, 36),
    ]);
  });
});

describe('jitter', () => {
  test.each([1, 2, 3, 4, 5, 6, 9])('after %i attempts stays within ±20 %%', (attemptsMade) => {
    const nominal = nominalRetryDelayMs(attemptsMade);
    expect(nextRetryDelayMs(attemptsMade, 0)).toBe(nominal * 0.8);
    expect(nextRetryDelayMs(attemptsMade, HIGHEST)).toBe(nominal * 1.2);
    expect(nextRetryDelayMs(attemptsMade, 0.25)).toBe(nominal * 0.9);
    for (let i = 0; i < 200; i += 1) {
      const delay = nextRetryDelayMs(attemptsMade, Math.random());
      expect(delay).toBeGreaterThanOrEqual(nominal * 0.8);
      expect(delay).toBeLessThanOrEqual(nominal * 1.2);
    }
  });

  test.each([-0.1, 1, 1.5, Number.NaN])('refuses random = %s', (random) => {
    expect(() => nextRetryDelayMs(1, random)).toThrow(RangeError);
  });

  test.each([0, -1, 1.5, Number.NaN])('refuses attemptsMade = %s', (attemptsMade) => {
    expect(() => nextRetryDelayMs(attemptsMade, MIDDLE)).toThrow(RangeError);
  });

  test('all-early jitter fits eleven retries, all-late only nine', () => {
    const early = planRetries(() => 0);
    const late = planRetries(() => HIGHEST);
    expect(early).toHaveLength(11);
    expect(late).toHaveLength(9);
    expect(early.at(-1)).toBe(64 * HOUR + 28.8 * MINUTE);
    expect(late.at(-1)).toBe(67 * HOUR + 55.2 * MINUTE);
  });

  test('random schedules never pass three days and always end', () => {
    for (let i = 0; i < 200; i += 1) {
      const offsets = planRetries(Math.random);
      expect(offsets.length).toBeGreaterThanOrEqual(9);
      expect(offsets.length).toBeLessThanOrEqual(11);
      expect(offsets.at(-1)).toBeLessThanOrEqual(RETRY_SPAN_MS);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    }
  });
});

describe('planNextRetry', () => {
  test('gives the delay while the retry lands within the span', () => {
    expect(planNextRetry({ attemptsMade: 1, elapsedSinceFirstAttemptMs: 0, random: MIDDLE })).toBe(MINUTE);
    expect(planNextRetry({ attemptsMade: 3, elapsedSinceFirstAttemptMs: 6 * MINUTE, random: 0 })).toBe(24 * MINUTE);
  });

  test('a retry landing exactly at three days is still made', () => {
    expect(planNextRetry({ attemptsMade: 10, elapsedSinceFirstAttemptMs: 60 * HOUR, random: MIDDLE })).toBe(12 * HOUR);
  });

  test('a retry landing past three days is not made', () => {
    expect(planNextRetry({ attemptsMade: 10, elapsedSinceFirstAttemptMs: 60 * HOUR + 1, random: MIDDLE })).toBeNull();
    expect(
      planNextRetry({ attemptsMade: 11, elapsedSinceFirstAttemptMs: 68 * HOUR + 36 * MINUTE, random: MIDDLE }),
    ).toBeNull();
  });

  test('counts the time attempts took', () => {
    expect(
      planNextRetry({ attemptsMade: 1, elapsedSinceFirstAttemptMs: RETRY_SPAN_MS - 30_000, random: MIDDLE }),
    ).toBeNull();
  });
});
