import { describe, expect, test } from 'vitest';
import { eventType, VIEW_KINDS, type ViewKind } from '../../domain/catalogue/event-type.ts';
import type { ProjectedBody } from '../../domain/catalogue/projection.ts';
import { RESOURCE_STATUSES, type ResourceStatus } from '../../domain/catalogue/status.ts';
import { EVENT_TYPES, type EventType } from '../../domain/events.ts';

// The event a change of a channel's view announces, for every kind and every pair of statuses:
// rows are the status the channel was shown before (null: never shown), columns the status after.
const AFTER = ['active', 'inactive', 'withdrawn', 'deleted'] as const satisfies readonly ResourceStatus[];
type Row = readonly [ResourceStatus | null, readonly [EventType, EventType, EventType, EventType]];

const TABLE: Record<ViewKind, readonly Row[]> = {
  property: [
    [null, ['property.distributed', 'property.distributed', 'property.withdrawn', 'property.deleted']],
    ['active', ['property.updated', 'property.updated', 'property.withdrawn', 'property.deleted']],
    ['inactive', ['property.updated', 'property.updated', 'property.withdrawn', 'property.deleted']],
    ['withdrawn', ['property.distributed', 'property.distributed', 'property.withdrawn', 'property.deleted']],
    // Never written (a deleted property's id is not used again); the rule still answers.
    ['deleted', ['property.updated', 'property.updated', 'property.withdrawn', 'property.deleted']],
  ],
  location: [
    [null, ['location.updated', 'location.updated', 'location.updated', 'location.deleted']],
    ['active', ['location.updated', 'location.updated', 'location.updated', 'location.deleted']],
    ['inactive', ['location.updated', 'location.updated', 'location.updated', 'location.deleted']],
    ['withdrawn', ['location.updated', 'location.updated', 'location.updated', 'location.deleted']],
    ['deleted', ['location.updated', 'location.updated', 'location.updated', 'location.deleted']],
  ],
  owner: [
    [null, ['owner.updated', 'owner.updated', 'owner.updated', 'owner.deleted']],
    ['active', ['owner.updated', 'owner.updated', 'owner.updated', 'owner.deleted']],
    ['inactive', ['owner.updated', 'owner.updated', 'owner.updated', 'owner.deleted']],
    ['withdrawn', ['owner.updated', 'owner.updated', 'owner.updated', 'owner.deleted']],
    ['deleted', ['owner.updated', 'owner.updated', 'owner.updated', 'owner.deleted']],
  ],
};

/** Event types chosen outside the projector, and where. */
const CHOSEN_ELSEWHERE: Partial<Record<EventType, string>> = {
  'amenity.updated': 'db/amenities.ts (a release)',
  'amenity.deleted': 'db/amenities.ts (a release)',
  'availability.updated': 'db/availability.ts (nights written or rolled)',
};

/** A body of the status: the rules of this table read nothing else of it. */
const shown = (status: ResourceStatus) => ({ id: 'prp_shown', status }) as ProjectedBody;

const cases = VIEW_KINDS.flatMap((kind) =>
  TABLE[kind].flatMap(([before, answers]) => AFTER.map((after, i) => ({ kind, before, after, expected: answers[i]! }))),
);

describe('eventType', () => {
  test.each(cases)('$kind from $before to $after is $expected', ({ kind, before, after, expected }) => {
    expect(eventType(kind, before === null ? null : shown(before), shown(after))).toBe(expected);
  });

  test('the table holds every kind, every status before (and never shown) and every status after', () => {
    expect(cases).toHaveLength(VIEW_KINDS.length * (RESOURCE_STATUSES.length + 1) * RESOURCE_STATUSES.length);
    expect([...AFTER].sort()).toEqual([...RESOURCE_STATUSES].sort());
    for (const kind of VIEW_KINDS) expect(TABLE[kind].map(([before]) => before)).toEqual([null, ...RESOURCE_STATUSES]);
  });

  test('every event type is chosen: by a move in this table, or by the one module named for it', () => {
    const chosen = new Set<string>([...cases.map((row) => row.expected), ...Object.keys(CHOSEN_ELSEWHERE)]);
    expect([...EVENT_TYPES].filter((type) => !chosen.has(type))).toEqual([]);
    expect(cases.filter((row) => row.expected in CHOSEN_ELSEWHERE)).toEqual([]);
  });
});
