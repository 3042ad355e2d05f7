import { describe, expect, test } from 'vitest';
import { checkCommitOrder, type ReadEvent } from '../../scripts/chaos/churn-check.ts';

const event = (id: string, record: string, version?: number): ReadEvent => ({
  id,
  type: 'property.updated',
  data: { object: 'property', id: record, ...(version === undefined ? {} : { version }) },
});
const log = [event('e1', 'p1', 1), event('e2', 'p2', 1), event('e3', 'p1', 2), event('e4', 'p1', 3)];

describe('the churn run: commit order as a syncing channel sees it', () => {
  test('a poller that met every event once, in the log order, with versions rising: no fault', () => {
    expect(checkCommitOrder(log.slice(1), log, 1)).toEqual({
      polled: 3,
      full: 3,
      missedByPoller: 0,
      reordered: 0,
      repeated: 0,
      versionRegressions: 0,
      sample: [],
    });
  });

  test("an event committed behind the poller's position is missed; one read twice is repeated", () => {
    const found = checkCommitOrder([log[0]!, log[2]!, log[3]!, log[3]!], log);
    expect(found.missedByPoller).toBe(1);
    expect(found.repeated).toBe(1);
    expect(found.sample[0]).toBe('missed e2 property.updated');
  });

  test('events read in another order than the log holds them are reordered', () => {
    expect(checkCommitOrder([log[1]!, log[0]!, log[2]!, log[3]!], log).reordered).toBe(2);
  });

  test('a record whose version does not rise is a regression; events without a version are not counted', () => {
    const regressed = [...log, event('e5', 'p1', 3), event('e6', 'p2'), event('e7', 'p2', 2)];
    const found = checkCommitOrder(regressed, regressed);
    expect(found.versionRegressions).toBe(1);
    expect(found.sample).toEqual(['version 3 after 3 for property p1 (e5)']);
  });
});
