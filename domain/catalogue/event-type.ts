import type { EventType } from '../events.ts';
import type { ResourceStatus } from './status.ts';

/** The kinds of record a channel is shown, each projected from the platform's source (db/catalogue/projector.ts). */
export const VIEW_KINDS = ['property', 'location', 'owner'] as const;
export type ViewKind = (typeof VIEW_KINDS)[number];

/**
 * The event announcing a record's move from `before` (null: never shown to the channel) to
 * `after`, for a change the channel can see (the projector writes none for an identical body).
 * The projector appends it with the record's new version; test/domain/event-type.test.ts holds
 * every pair of statuses, per kind, against it.
 */
export function eventType(kind: ViewKind, before: ResourceStatus | null, after: ResourceStatus): EventType {
  if (after === 'deleted') return `${kind}.deleted`;
  if (kind !== 'property') return `${kind}.updated`;
  if (after === 'withdrawn') return 'property.withdrawn';
  return before === null || before === 'withdrawn' ? 'property.distributed' : 'property.updated';
}
