import { describe, expect, test } from 'vitest';
import { channelReceivesWebhooks, endpointReceivesEvent, webhookBody } from '../../domain/webhooks/sending.ts';

describe('which channels are sent webhooks', () => {
  test.each<[string, Date | null | undefined, boolean]>([
    ['active', null, true],
    ['active', undefined, true],
    ['active', new Date('2026-11-20T00:00:00Z'), false],
    ['suspended', null, false],
    ['suspended', new Date('2026-11-20T00:00:00Z'), false],
  ])('a channel %s, its webhooks held since %s: %s', (status, webhooksSuspendedAt, receives) => {
    expect(channelReceivesWebhooks({ status, webhooksSuspendedAt })).toBe(receives);
  });
});

describe('which events an endpoint is sent', () => {
  test.each<[string[], number, number, string, boolean]>([
    [['*'], 10, 11, 'property.updated', true],
    [['*'], 10, 10, 'property.updated', false],
    [['*'], 10, 9, 'property.updated', false],
    [['*'], 0, 1, 'availability.updated', true],
    [['property.*'], 0, 1, 'property.deleted', true],
    [['property.*'], 0, 1, 'location.updated', false],
    [['location.updated', 'owner.*'], 0, 1, 'owner.deleted', true],
    [['location.updated', 'owner.*'], 0, 1, 'location.deleted', false],
    [['location.updated', 'owner.*'], 5, 5, 'location.updated', false],
  ])('patterns %j, resuming after %i: event %i (%s) %s', (events, resumeAfter, position, type, sent) => {
    expect(endpointReceivesEvent({ events, resumeAfter }, { position, type })).toBe(sent);
  });
});

describe('the body of a webhook', () => {
  test('the event in the contract’s field order, its instant in whole seconds, UTC', () => {
    const body = webhookBody({
      id: 'evt_1',
      type: 'property.updated',
      occurredAt: new Date('2026-11-22T10:00:00.123Z'),
      channel: 'bookstay',
      data: { object: 'property', id: 'prp_1' },
    });
    expect(body).toBe(
      '{"id":"evt_1","type":"property.updated","occurred_at":"2026-11-22T10:00:00Z","channel":"bookstay","data":{"object":"property","id":"prp_1"}}',
    );
  });
});
