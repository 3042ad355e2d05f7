import { describe, expect, test } from 'vitest';
import { checkDeliveries, patternMatches } from '../../scripts/chaos/check.ts';
import type { Arrival } from '../../scripts/chaos/receiver.ts';

const arrival = (endpoint: string, eventId: string, webhookId = eventId, verified = true): Arrival => ({
  endpoint,
  eventId,
  webhookId,
  type: 'property.updated',
  verified,
  at: 0,
  by: 'worker-1',
});
const events = [
  { id: 'evt_1', type: 'property.updated' },
  { id: 'evt_2', type: 'location.updated' },
];
const endpoints = [
  { name: 'all', events: ['*'] },
  { name: 'properties', events: ['property.*'] },
];

describe("the chaos run's reading of what arrived", () => {
  test.each([
    ['*', 'availability.updated', true],
    ['property.*', 'property.withdrawn', true],
    ['property.*', 'propertyx.updated', false],
    ['location.updated', 'location.updated', true],
    ['location.updated', 'location.deleted', false],
  ])('pattern %s matches %s: %s', (pattern, type, matches) => {
    expect(patternMatches(pattern, type)).toBe(matches);
  });

  test('every pair once: nothing lost; a retry of a pair is a duplicate, not a fault', () => {
    const found = checkDeliveries(events, endpoints, [
      arrival('all', 'evt_1'),
      arrival('all', 'evt_2'),
      arrival('properties', 'evt_1'),
      arrival('properties', 'evt_1'),
    ]);
    expect(found).toMatchObject({
      expected: 3,
      received: 3,
      lost: 0,
      duplicates: 1,
      unexpected: 0,
      idMismatches: 0,
      sharedIds: 0,
      unverified: 0,
    });
  });

  test('a pair never received is lost and named', () => {
    const found = checkDeliveries(events, endpoints, [arrival('all', 'evt_1'), arrival('properties', 'evt_1')]);
    expect(found).toMatchObject({ expected: 3, received: 2, lost: 1, lostSample: ['all evt_2 location.updated'] });
  });

  test('a retry under another webhook-id, one id for two events, an unasked event and a bad signature are each counted', () => {
    const found = checkDeliveries(events, endpoints, [
      arrival('all', 'evt_1'),
      arrival('all', 'evt_1', 'evt_other'),
      arrival('all', 'evt_2', 'evt_1'),
      arrival('properties', 'evt_1', 'evt_1', false),
      arrival('properties', 'evt_2'),
    ]);
    expect(found).toMatchObject({ lost: 0, idMismatches: 2, sharedIds: 1, unexpected: 1, unverified: 1 });
  });
});
