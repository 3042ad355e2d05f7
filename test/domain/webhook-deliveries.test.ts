import { describe, expect, test } from 'vitest';
import { attemptStart, DELIVERY_RETENTION_MS, outcomeOf, retentionCutoff } from '../../domain/webhooks/deliveries.ts';
import type { AttemptStart, DeliveryState, EndpointStatus } from '../../domain/webhooks/states.ts';

type Channel = { status: string; webhooksSuspendedAt: Date | null };

const DAY = 24 * 3600 * 1000;
const active: Channel = { status: 'active', webhooksSuspendedAt: null };
const held: Channel = { status: 'active', webhooksSuspendedAt: new Date('2026-11-20T00:00:00Z') };
const suspended: Channel = { status: 'suspended', webhooksSuspendedAt: null };

describe('what an attempt does before it POSTs', () => {
  test.each<[DeliveryState, EndpointStatus | null, Channel | null, AttemptStart]>([
    ['pending', 'active', active, 'send'],
    ['delivered', 'active', active, 'delivered'],
    ['failed', 'active', active, 'ended'],
    ['cancelled', 'active', active, 'ended'],
    // An ended delivery is answered as it ended, whatever became of its endpoint.
    ['delivered', 'deleted', null, 'delivered'],
    ['cancelled', null, null, 'ended'],
    ['pending', 'inactive', active, 'cancel'],
    ['pending', 'deleted', active, 'cancel'],
    ['pending', null, null, 'cancel'],
    ['pending', 'active', null, 'cancel'],
    ['pending', 'active', held, 'cancel'],
    ['pending', 'active', suspended, 'cancel'],
  ])('a %s delivery, its endpoint %s, its channel %j: %s', (state, status, channel, start) => {
    expect(attemptStart({ state }, status === null ? null : { status }, channel)).toBe(start);
  });
});

describe("what a receiver's answer means", () => {
  test.each<[number | null, string]>([
    [200, 'delivered'],
    [201, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [410, 'gone'],
    [199, 'failed'],
    [300, 'failed'],
    [301, 'failed'],
    [400, 'failed'],
    [404, 'failed'],
    [409, 'failed'],
    [429, 'failed'],
    [500, 'failed'],
    [503, 'failed'],
    [null, 'failed'],
  ])('status %s: %s', (statusCode, outcome) => {
    expect(outcomeOf({ statusCode })).toBe(outcome);
  });
});

describe('how long deliveries are kept', () => {
  test('35 days', () => {
    expect(DELIVERY_RETENTION_MS).toBe(35 * DAY);
  });

  test.each([
    ['2026-11-22T10:00:00.000Z', '2026-10-18T10:00:00.000Z'],
    ['2026-03-31T00:00:00.000Z', '2026-02-24T00:00:00.000Z'],
  ])('at %s, what was made before %s is dropped', (now, cutoff) => {
    expect(retentionCutoff(new Date(now)).toISOString()).toBe(cutoff);
  });
});
