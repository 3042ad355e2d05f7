import type { components } from './generated/schema.ts';

/**
 * Telling a full record from a tombstone. A `withdrawn` or `deleted` resource is served as a
 * tombstone, exactly `{id, status, version, updated_at}`; both have `status: string` (an open
 * enum), so TypeScript cannot tell `Property | Tombstone` apart by `status`, and every full
 * record has the four fields too.
 */

export type Tombstone = components['schemas']['Tombstone'];

type TombstoneField = keyof Tombstone;
const TOMBSTONE_FIELDS: readonly string[] = ['id', 'status', 'version', 'updated_at'] satisfies TombstoneField[];
const TOMBSTONE_STATUSES: readonly string[] = ['withdrawn', 'deleted'];

/** The members of `T` that are full records: those with a field beyond a tombstone's four. */
export type FullRecord<T> = T extends unknown
  ? [Exclude<keyof T, TombstoneField>] extends [never]
    ? never
    : T
  : never;

/** The members of `T` that are tombstones: those with no field beyond the four. */
export type TombstoneOf<T> = T extends unknown
  ? [Exclude<keyof T, TombstoneField>] extends [never]
    ? T
    : never
  : never;

/**
 * Whether `resource` is the full record rather than a tombstone; narrows both ways:
 *
 *     const { data } = await client.GET('/properties/{property_id}', …); // Property | Tombstone
 *     if (isFullRecord(data)) show(data.name);      // Property
 *     else hide(data.id, data.status);              // Tombstone: withdrawn or deleted
 *
 * A tombstone is told by its status (`withdrawn`, `deleted`) or, whatever status v1 adds, by
 * carrying nothing but the four fields.
 */
export function isFullRecord<T extends Tombstone>(resource: T): resource is FullRecord<T> {
  if (TOMBSTONE_STATUSES.includes(resource.status)) return false;
  return Object.keys(resource).some((field) => !TOMBSTONE_FIELDS.includes(field));
}

/**
 * Whether `resource` is a tombstone: `!isFullRecord(resource)`. Only a boolean, no narrowing,
 * since a full record is also a `Tombstone` to TypeScript (it has the four fields): branch on
 * {@link isFullRecord} to have both sides typed.
 */
export function isTombstone(resource: Tombstone): boolean {
  return !isFullRecord(resource);
}
