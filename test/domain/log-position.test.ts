import { describe, expect, test } from 'vitest';
import { CURSOR_PATTERN, encodeCursor, hashQuery, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { keyRing } from '../../domain/key-ring.ts';
import { logHoldsPlace, type LogAtPosition, type LogPlace } from '../../domain/catalogue/log-position.ts';

const E5 = 'evt_01m81b5h80da2t6y5kt83wf22g';
const OTHER = 'evt_01m81b5h80dwed1wztbr90km49';
const at = (position: number, id = E5) => ({ position, id });

describe('logHoldsPlace', () => {
  test.each<[string, LogPlace, LogAtPosition, boolean]>([
    ['the event at the position is the cursor’s', { position: 5, eventId: E5 }, { end: 9, atOrBefore: at(5) }, true],
    ['… and the log ends there', { position: 5, eventId: E5 }, { end: 5, atOrBefore: at(5) }, true],
    ['position 0 of a log never written', { position: 0 }, { end: 0, atOrBefore: null }, true],
    ['position 0 of a written log', { position: 0 }, { end: 7, atOrBefore: null }, true],
    [
      'everything up to the position dropped by retention',
      { position: 5, eventId: E5 },
      { end: 9, atOrBefore: null },
      true,
    ],
    ['… with nothing written since', { position: 5, eventId: E5 }, { end: 5, atOrBefore: null }, true],
    [
      'another event at the position (restored, then written again)',
      { position: 5, eventId: E5 },
      { end: 9, atOrBefore: at(5, OTHER) },
      false,
    ],
    [
      'the log ends before the position (restored)',
      { position: 5, eventId: E5 },
      { end: 3, atOrBefore: at(3, OTHER) },
      false,
    ],
    ['a log never written, a cursor past 0', { position: 5, eventId: E5 }, { end: 0, atOrBefore: null }, false],
    [
      // The id is the cursor's only to leave the position alone to refuse it.
      'the event at the position gone while earlier ones are kept',
      { position: 5, eventId: E5 },
      { end: 9, atOrBefore: at(4) },
      false,
    ],
    ['a cursor without an id, its position held', { position: 5 }, { end: 9, atOrBefore: at(5, OTHER) }, true],
    ['a cursor without an id, the log ending before it', { position: 5 }, { end: 3, atOrBefore: at(3) }, false],
    ['a cursor without an id, a hole at its position', { position: 5 }, { end: 9, atOrBefore: at(4) }, false],
  ])('%s: %o in %o holds: %s', (_label, place, log, holds) => {
    expect(logHoldsPlace(place, log)).toBe(holds);
  });
});

describe('an event cursor naming its event', () => {
  test('stays within the described length and shape at the largest key id, position and time', async () => {
    const ring = keyRing([{ id: 999_999, secret: new Uint8Array(32).fill(1) }], new Uint8Array(32));
    const cursor = await encodeCursor(
      { p: Number.MAX_SAFE_INTEGER, t: 9_999_999_999_999, e: 'evt_7zzzzzzzzzzzzzzzzzzzzzzzzz' },
      hashQuery({ kind: 'events', channel: '00000000-0000-4000-8000-000000000000' }),
      ring,
    );
    expect(cursor).toMatch(new RegExp(CURSOR_PATTERN));
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(cursor.length).toBeLessThan(160);
  });
});
