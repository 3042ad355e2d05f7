import { describe, expect, test } from 'vitest';
import {
  derivedStatus,
  presentResource,
  presentStoredResource,
  type ProjectedBody,
} from '../../domain/catalogue/projection.ts';
import { RESOURCE_STATUSES, type ResourceStatus } from '../../domain/catalogue/status.ts';

test("the resource statuses are the contract's four", () => {
  expect(RESOURCE_STATUSES).toEqual(['active', 'inactive', 'withdrawn', 'deleted']);
});

describe('derivedStatus: a location or owner from the statuses of the properties naming it', () => {
  test.each<[ResourceStatus[], ResourceStatus | null]>([
    [[], null],
    [['active'], 'active'],
    [['inactive', 'active', 'withdrawn'], 'active'],
    [['deleted', 'active'], 'active'],
    [['inactive'], 'inactive'],
    [['inactive', 'inactive'], 'inactive'],
    [['withdrawn', 'inactive'], 'inactive'],
    [['deleted', 'inactive'], 'inactive'],
    [['withdrawn'], 'withdrawn'],
    [['withdrawn', 'withdrawn'], 'withdrawn'],
    // A deleted property is gone: what it leaves behind is withdrawn, never deleted.
    [['deleted'], 'withdrawn'],
    [['deleted', 'withdrawn'], 'withdrawn'],
    [['deleted', 'deleted'], 'withdrawn'],
  ])('%o -> %s', (statuses, expected) => {
    expect(derivedStatus(statuses)).toBe(expected);
  });
});

describe('presentResource: the served record', () => {
  const ID = 'prp_01jwnnsvg0abcdefghjkmnpqrs';
  const UPDATED_AT = '2026-11-22T10:00:00Z';
  // The presentation reads only id and status: the rest stands for any record's fields, in order.
  const body = (status: ResourceStatus) =>
    ({
      id: ID,
      status,
      name: { ro: 'Casa' },
      units: 2,
      legal: null,
    }) as unknown as ProjectedBody;

  test.each<ResourceStatus>(['active', 'inactive'])(
    'a %s record is served whole: id, status, version, updated_at first, then its body in order',
    (status) => {
      const served = presentResource(body(status), 7, UPDATED_AT);
      expect(served).toStrictEqual({
        id: ID,
        status,
        version: 7,
        updated_at: UPDATED_AT,
        name: { ro: 'Casa' },
        units: 2,
        legal: null,
      });
      expect(Object.keys(served)).toEqual(['id', 'status', 'version', 'updated_at', 'name', 'units', 'legal']);
    },
  );

  test.each<ResourceStatus>(['withdrawn', 'deleted'])(
    'a %s record is exactly the tombstone id, status, version, updated_at',
    (status) => {
      const served = presentResource(body(status), 8, UPDATED_AT);
      expect(served).toStrictEqual({ id: ID, status, version: 8, updated_at: UPDATED_AT });
      expect(Object.keys(served)).toEqual(['id', 'status', 'version', 'updated_at']);
    },
  );

  test('the stored body is left as it was', () => {
    const stored = body('withdrawn');
    presentResource(stored, 8, UPDATED_AT);
    expect(stored).toStrictEqual(body('withdrawn'));
  });
});

describe('presentStoredResource: the served record from the stored text, as presentResource serialises it', () => {
  const ID = 'prp_01jwnnsvg0abcdefghjkmnpqrs';
  const UPDATED_AT = '2026-11-22T10:00:00Z';
  const body = (status: ResourceStatus) =>
    ({
      id: ID,
      status,
      name: { ro: 'Casă "veche"\n' },
      units: 2,
      legal: null,
      price: 12.5,
    }) as unknown as ProjectedBody;

  test.each<ResourceStatus>(['active', 'inactive', 'withdrawn', 'deleted'])(
    'a %s record stored by the projector',
    (status) => {
      const served = presentStoredResource(JSON.stringify(body(status)), ID, status, 9, UPDATED_AT);
      expect(served).toBe(JSON.stringify(presentResource(body(status), 9, UPDATED_AT)));
    },
  );

  test.each<[string, string]>([
    ['keys in another order', JSON.stringify({ status: 'active', id: ID, units: 2 })],
    ['spaces after the opening', `{"id":"${ID}","status":"active" , "units": 2}`],
    ['nothing but id and status', JSON.stringify({ id: ID, status: 'active' })],
  ])('a text with %s', (_title, stored) => {
    const served = presentStoredResource(stored, ID, 'active', 9, UPDATED_AT);
    expect(served).toBe(JSON.stringify(presentResource(JSON.parse(stored) as ProjectedBody, 9, UPDATED_AT)));
  });
});
