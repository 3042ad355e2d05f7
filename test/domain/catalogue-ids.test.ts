import { describe, expect, test } from 'vitest';
import {
  externalIdKind,
  ID_KINDS,
  ID_PATTERNS,
  ID_PREFIXES,
  isExternalId,
  newExternalId,
} from '../../domain/catalogue/ids.ts';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const CONTRACT_BODY = /^[0-7][0-9a-hjkmnp-tv-z]{25}$/;

describe('newExternalId', () => {
  test.each(ID_KINDS)('%s ids carry their prefix and a lowercase ULID', (kind) => {
    const id = newExternalId(kind, NOW);
    expect(id.startsWith(ID_PREFIXES[kind])).toBe(true);
    expect(id.slice(ID_PREFIXES[kind].length)).toMatch(CONTRACT_BODY);
    expect(isExternalId(kind, id)).toBe(true);
  });

  test('the contract prefixes are the ones it names', () => {
    expect(ID_PREFIXES).toMatchObject({
      property: 'prp_',
      location: 'loc_',
      owner: 'own_',
      photo: 'pho_',
      rate_plan: 'rpl_',
      event: 'evt_',
    });
  });

  test('the time part encodes now, so ids of later instants sort later', () => {
    const earlier = newExternalId('event', NOW, () => 0.99);
    const later = newExternalId('event', NOW + 1, () => 0);
    expect(earlier < later).toBe(true);
    // 2025-06-01T12:00:00Z = 1748779200000 ms = 01jwnnsvg0 in Crockford base32
    expect(earlier.slice(4, 14)).toBe('01jwnnsvg0');
  });

  test('a fixed random source gives a fixed id', () => {
    expect(newExternalId('property', NOW, () => 0)).toBe('prp_01jwnnsvg00000000000000000');
    expect(newExternalId('property', NOW, () => 0.999)).toBe('prp_01jwnnsvg0zzzzzzzzzzzzzzzz');
  });

  test('ids minted in the same millisecond differ', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newExternalId('photo', NOW)));
    expect(ids.size).toBe(1000);
  });

  test.each([0, -1, 1.5, Number.NaN, 2 ** 48])('refuses now = %s', (now) => {
    expect(() => newExternalId('owner', now)).toThrow(RangeError);
  });
});

describe('isExternalId', () => {
  const body = '01jwnt8800abcdefghjkmnpqrs';
  test.each([
    ['property', `prp_${body}`, true],
    ['property', `loc_${body}`, false],
    ['property', `PRP_${body}`, false],
    ['property', `prp_${body.toUpperCase()}`, false],
    ['property', `prp_8${body.slice(1)}`, false],
    ['property', `prp_${body.slice(0, 25)}`, false],
    ['property', `prp_${body}x`, false],
    ['property', `prp_${body.slice(0, 25)}i`, false],
    ['property', `prp_${body.slice(0, 25)}l`, false],
    ['property', `prp_${body.slice(0, 25)}o`, false],
    ['property', `prp_${body.slice(0, 25)}u`, false],
    ['webhook', `whk_${body}`, true],
    ['delivery', `dlv_${body}`, true],
    ['event', 42, false],
  ] as const)('%s %s -> %s', (kind, value, expected) => {
    expect(isExternalId(kind, value)).toBe(expected);
  });

  test('patterns are anchored', () => {
    expect(ID_PATTERNS.location.test(` loc_${body}`)).toBe(false);
  });
});

describe('externalIdKind', () => {
  test.each(ID_KINDS)('recognises %s', (kind) => {
    expect(externalIdKind(newExternalId(kind, NOW))).toBe(kind);
  });

  test('null for anything else', () => {
    expect(externalIdKind('usr_01jwnt8800abcdefghjkmnpqrs')).toBeNull();
    expect(externalIdKind(undefined)).toBeNull();
  });
});
