import type { EventType } from '../events.ts';
import type { ProjectedBody } from './projection.ts';

/** The kinds of record a channel is shown, each projected from the platform's source (db/catalogue/projector.ts). */
export const VIEW_KINDS = ['property', 'location', 'owner'] as const;
export type ViewKind = (typeof VIEW_KINDS)[number];

/**
 * The event announcing a record's move from the body the channel was shown (`before`; null: never
 * shown) to the one it is shown now (`after`), for a change the channel can see (the projector
 * writes none for an identical body). Given both bodies whole, so a rule that looks past the
 * statuses (which fields changed) is written here, under the table test, and the projector only
 * appends what this answers, with the record's new version. test/domain/event-type.test.ts holds
 * every pair of statuses, per kind, against it.
 */
export function eventType(kind: ViewKind, before: ProjectedBody | null, after: ProjectedBody): EventType {
  if (after.status === 'deleted') return `${kind}.deleted`;
  if (kind !== 'property') return `${kind}.updated`;
  if (after.status === 'withdrawn') return 'property.withdrawn';
  return before === null || before.status === 'withdrawn' ? 'property.distributed' : 'property.updated';
}
