import { describe, expect, test } from 'vitest';
import { isResourceStatus, isTombstone, RESOURCE_STATUSES, strongestStatus, tombstone, type ResourceStatus } from '../../domain/catalogue/status.ts';

describe('strongestStatus', () => {
  test.each<[ResourceStatus[], ResourceStatus | null]>([
    [[], null],
    [['active'], 'active'],
    [['inactive', 'active', 'withdrawn'], 'active'],
    [['inactive', 'inactive'], 'inactive'],
    [['withdrawn', 'inactive'], 'inactive'],
    [['deleted', 'withdrawn'], 'withdrawn'],
    [['deleted'], 'deleted'],
    [['deleted', 'active'], 'active'],
  ])('%o -> %s', (statuses, expected) => {
    expect(strongestStatus(statuses)).toBe(expected);
  });

  test('refuses an unknown status', () => {
    expect(() => strongestStatus(['paused' as ResourceStatus])).toThrow(RangeError);
  });
});

describe('tombstones', () => {
  test.each<[ResourceStatus, boolean]>([
    ['active', false], ['inactive', false], ['withdrawn', true], ['deleted', true],
  ])('%s is a tombstone: %s', (status, expected) => {
    expect(isTombstone(status)).toBe(expected);
  });

  test('a tombstone has exactly id, status, version and updated_at', () => {
    const full = {
      id: 'prp_01jwnnsvg0abcdefghjkmnpqrs', status: 'withdrawn' as const, version: 42, updated_at: '2025-06-15T10:00:00Z',
      name: { ro: 'Casa' }, units: 2, legal: null,
    };
    const result = tombstone(full);
    expect(result).toStrictEqual({ id: full.id, status: 'withdrawn', version: 42, updated_at: '2025-06-15T10:00:00Z' });
    expect(Object.keys(result)).toEqual(['id', 'status', 'version', 'updated_at']);
  });

  test.each<ResourceStatus>(['active', 'inactive'])('a %s resource cannot be cut down to a tombstone', (status) => {
    expect(() => tombstone({ id: 'loc_x', status, version: 1, updated_at: '2025-06-15T10:00:00Z' })).toThrow(RangeError);
  });
});

test('resource statuses', () => {
  expect(RESOURCE_STATUSES).toEqual(['active', 'inactive', 'withdrawn', 'deleted']);
  expect(isResourceStatus('withdrawn')).toBe(true);
  expect(isResourceStatus('suspended')).toBe(false);
});
