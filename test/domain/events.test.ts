import { describe, expect, test } from 'vitest';
import {
  EVENT_TYPES,
  eventTypesForPattern,
  type EventType,
  isEventType,
  isValidEventPattern,
  matchesAnyEventPattern,
  matchesEventPattern,
  PING_EVENT_TYPE,
  scopeForEventType,
  scopesForPattern,
  scopesForPatterns,
} from '../../domain/events.ts';

describe('event types', () => {
  test('are the contract kinds, unique, without the ping', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(EVENT_TYPES).toEqual(
      expect.arrayContaining([
        'property.updated',
        'property.withdrawn',
        'property.distributed',
        'location.updated',
        'owner.updated',
        'availability.updated',
      ]),
    );
    expect(isEventType(PING_EVENT_TYPE)).toBe(false);
  });

  test.each(EVENT_TYPES.map((type) => [type, type === 'availability.updated' ? 'read:ari' : 'read:catalog']))(
    '%s needs %s',
    (type, scope) => {
      expect(scopeForEventType(type)).toBe(scope);
    },
  );
});

describe('isValidEventPattern', () => {
  test.each(['*', 'property.*', 'location.*', 'owner.*', 'amenity.*', 'availability.*', ...EVENT_TYPES])(
    'accepts %s',
    (pattern) => {
      expect(isValidEventPattern(pattern)).toBe(true);
    },
  );

  // v1 adds event types: a subscription may name one before this revision knows it.
  test.each(['property.created', 'booking.*', 'booking.created', 'rate_plan.updated', 'webhook.ping', 'webhook.*'])(
    'accepts %s, a kind or type not known yet',
    (pattern) => {
      expect(isValidEventPattern(pattern)).toBe(true);
    },
  );

  test.each([
    '',
    '**',
    '*.*',
    '*.updated',
    'property.',
    'property',
    'property.**',
    'Property.*',
    'PROPERTY.UPDATED',
    'property.updated.now',
    '1property.updated',
    'property.up-dated',
    `property.${'x'.repeat(92)}`,
    ' property.updated',
    'property.updated ',
    'prop*',
  ])('refuses %j', (pattern) => {
    expect(isValidEventPattern(pattern)).toBe(false);
    expect(scopesForPattern(pattern)).toEqual([]);
  });
});

describe('matchesEventPattern', () => {
  test.each([
    ['*', 'property.updated', true],
    ['*', 'availability.updated', true],
    ['*', 'rate_plan.updated', true],
    ['*', PING_EVENT_TYPE, false],
    ['property.*', 'property.updated', true],
    ['property.*', 'property.deleted', true],
    ['property.*', 'property.photo_added', true],
    ['property.*', 'location.updated', false],
    ['property.*', 'propertyx.updated', false],
    ['location.*', 'location.deleted', true],
    ['availability.updated', 'availability.updated', true],
    ['availability.updated', 'property.updated', false],
    ['property.updated', 'property.updated', true],
    ['property.updated', 'property.updated.extra', false],
  ])('%s against %s: %s', (pattern, type, expected) => {
    expect(matchesEventPattern(pattern, type)).toBe(expected);
  });

  test('any of several patterns', () => {
    expect(matchesAnyEventPattern(['owner.*', 'availability.updated'], 'availability.updated')).toBe(true);
    expect(matchesAnyEventPattern(['owner.*', 'availability.updated'], 'property.updated')).toBe(false);
    expect(matchesAnyEventPattern([], 'property.updated')).toBe(false);
  });

  // The expected sets are computed by a rule of their own from EVENT_TYPES (`*` is every type, in
  // order; `kind.*` those whose name starts `kind.`; a type is itself), so a new type needs no row.
  const kinds = [...new Set(EVENT_TYPES.map((type) => type.slice(0, type.indexOf('.'))))];
  const expansions: (readonly [pattern: string, expected: readonly EventType[]])[] = [
    ['*', [...EVENT_TYPES]],
    ...kinds.map((kind) => [`${kind}.*`, EVENT_TYPES.filter((type) => type.startsWith(`${kind}.`))] as const),
    ...EVENT_TYPES.map((type) => [type, [type]] as const),
  ];
  test.each(expansions)('%s expands to the known types it matches', (pattern, expected) => {
    expect(eventTypesForPattern(pattern)).toEqual(expected);
  });

  test.each([
    ['property.*', 'property.updated', true],
    ['property.*', 'location.updated', false],
    ['property.updated', 'property.deleted', false],
    ['*', PING_EVENT_TYPE, false],
  ])('%s expanded includes %s: %s', (pattern, type, expected) => {
    expect((eventTypesForPattern(pattern) as readonly string[]).includes(type)).toBe(expected);
  });

  test.each(['booking.*', 'property.created', PING_EVENT_TYPE, 'webhook.*', 'prop*'])(
    '%s expands to no known type',
    (pattern) => {
      expect(eventTypesForPattern(pattern)).toEqual([]);
    },
  );
});

describe('scopesForPattern', () => {
  test.each([
    ['*', ['read:ari', 'read:catalog']],
    ['property.*', ['read:catalog']],
    ['location.*', ['read:catalog']],
    ['availability.*', ['read:ari']],
    ['availability.updated', ['read:ari']],
    ['owner.deleted', ['read:catalog']],
    // Not known yet: its scope cannot be known, so every scope events need today.
    ['property.created', ['read:ari', 'read:catalog']],
    ['booking.*', ['read:ari', 'read:catalog']],
  ])('%s needs %j', (pattern, scopes) => {
    expect(scopesForPattern(pattern)).toEqual(scopes);
  });

  test('several patterns need the union of their scopes', () => {
    expect(scopesForPatterns(['property.*', 'owner.updated'])).toEqual(['read:catalog']);
    expect(scopesForPatterns(['availability.updated', 'property.*'])).toEqual(['read:ari', 'read:catalog']);
    expect(scopesForPatterns([])).toEqual([]);
  });
});
