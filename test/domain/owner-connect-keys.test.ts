import { describe, expect, test } from 'vitest';
import {
  isPublishedAt,
  KEY_SET_MAX_AGE_SECONDS,
  keyState,
  maySign,
  planRotation,
  PUBLICATION_LEAD_MS,
  type ScheduledKey,
} from '../../domain/owner-connect-keys.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms);

function key(
  kid: string,
  times: { published: number; activated?: number; retired?: number; unpublished?: number; hasPrivate?: boolean },
): ScheduledKey {
  return {
    kid,
    publishedAt: at(times.published),
    activatedAt: times.activated === undefined ? null : at(times.activated),
    retiredAt: times.retired === undefined ? null : at(times.retired),
    unpublishedAt: times.unpublished === undefined ? null : at(times.unpublished),
    hasPrivate: times.hasPrivate ?? true,
  };
}

describe('the 24-hour rules', () => {
  test('a key may sign only once published for 24 hours', () => {
    expect(PUBLICATION_LEAD_MS).toBe(DAY);
    expect(maySign(at(0), at(DAY - 1))).toBe(false);
    expect(maySign(at(0), at(DAY))).toBe(true);
  });

  test('the set may be cached well under the 24 hours a key is published before it signs', () => {
    expect(KEY_SET_MAX_AGE_SECONDS * 1000).toBeLessThanOrEqual(DAY / 24);
  });

  test.each([
    ['before its activation', key('a', { published: 0 }), 5 * DAY, 'published', true],
    ['while it signs', key('a', { published: 0, activated: DAY }), 2 * DAY, 'active', true],
    [
      'retired, within its 24 h',
      key('a', { published: 0, activated: DAY, retired: 3 * DAY, unpublished: 4 * DAY }),
      4 * DAY - 1,
      'retired',
      true,
    ],
    [
      'retired, after its 24 h',
      key('a', { published: 0, activated: DAY, retired: 3 * DAY, unpublished: 4 * DAY }),
      4 * DAY,
      'withdrawn',
      false,
    ],
    [
      'withdrawn at once (compromised)',
      key('a', { published: 0, activated: DAY, retired: 2 * DAY, unpublished: 2 * DAY }),
      2 * DAY,
      'withdrawn',
      false,
    ],
  ] as const)('%s: state and publication', (_title, k, when, state, published) => {
    expect(keyState(k, at(when))).toBe(state);
    expect(isPublishedAt(k, at(when))).toBe(published);
  });

  test('a key is not in a set read before its publication', () => {
    expect(isPublishedAt(key('a', { published: DAY }), at(DAY - 1))).toBe(false);
  });
});

describe('planRotation (period 30 days)', () => {
  const P = 30 * DAY;

  test('no key at all: the bootstrap is due at once', () => {
    expect(planRotation([], at(0), 30)).toEqual({ due: [{ kind: 'bootstrap' }], nextAt: at(0) });
  });

  test('one active key: its successor is published one day before the period ends', () => {
    const keys = [key('a', { published: 0, activated: 0 })];
    expect(planRotation(keys, at(HOUR), 30)).toEqual({ due: [], nextAt: at(P - DAY) });
    expect(planRotation(keys, at(P - DAY - 1), 30).due).toEqual([]);
    expect(planRotation(keys, at(P - DAY), 30).due).toEqual([{ kind: 'create' }]);
  });

  test('a pending key switches exactly 24 hours after its publication, never earlier', () => {
    const keys = [key('a', { published: 0, activated: 0 }), key('b', { published: P - DAY })];
    expect(planRotation(keys, at(P - DAY), 30)).toEqual({ due: [], nextAt: at(P) });
    expect(planRotation(keys, at(P - 1), 30).due).toEqual([]);
    expect(planRotation(keys, at(P), 30).due).toEqual([{ kind: 'switch', kid: 'b' }]);
  });

  test('an early rotation (a key published mid-period) switches 24 hours after its publication', () => {
    const keys = [key('a', { published: 0, activated: 0 }), key('b', { published: 3 * DAY })];
    expect(planRotation(keys, at(3 * DAY), 30).nextAt).toEqual(at(4 * DAY));
    expect(planRotation(keys, at(4 * DAY), 30).due).toEqual([{ kind: 'switch', kid: 'b' }]);
  });

  test('a retired key loses its private part when it leaves the set, 24 hours after retirement', () => {
    const keys = [
      key('a', { published: 0, activated: 0, retired: P, unpublished: P + DAY }),
      key('b', { published: P - DAY, activated: P }),
    ];
    expect(planRotation(keys, at(P), 30)).toEqual({ due: [], nextAt: at(P + DAY) });
    expect(planRotation(keys, at(P + DAY), 30).due).toEqual([{ kind: 'destroy', kid: 'a' }]);
    const destroyed = [{ ...keys[0]!, hasPrivate: false }, keys[1]!];
    expect(planRotation(destroyed, at(P + DAY), 30)).toEqual({ due: [], nextAt: at(2 * P - DAY) });
  });

  test('the period is at least two days, so a successor is never published before the previous key left the set', () => {
    const keys = [key('a', { published: 0, activated: 0 })];
    expect(planRotation(keys, at(0), 1).nextAt).toEqual(at(DAY));
    expect(planRotation(keys, at(0), 7).nextAt).toEqual(at(6 * DAY));
  });
});
