/** Strongest first: the order `strongestStatus` ranks by. */
export const RESOURCE_STATUSES = ['active', 'inactive', 'withdrawn', 'deleted'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];

export const TOMBSTONE_STATUSES = ['withdrawn', 'deleted'] as const;
export type TombstoneStatus = (typeof TOMBSTONE_STATUSES)[number];

export interface Tombstone {
  id: string;
  status: TombstoneStatus;
  version: number;
  updated_at: string;
}

export function isResourceStatus(value: unknown): value is ResourceStatus {
  return RESOURCE_STATUSES.includes(value as ResourceStatus);
}

export function isTombstone(status: ResourceStatus): status is TombstoneStatus {
  return status === 'withdrawn' || status === 'deleted';
}

/**
 * Status of a location or owner from the statuses of the properties naming it that the channel
 * has ever been shown. Null when there are none: the location or owner is not shown at all.
 */
export function strongestStatus(statuses: readonly ResourceStatus[]): ResourceStatus | null {
  let best: number | null = null;
  for (const status of statuses) {
    const rank = RESOURCE_STATUSES.indexOf(status);
    if (rank < 0) throw new RangeError(`strongestStatus: unknown status ${String(status)}`);
    if (best === null || rank < best) best = rank;
  }
  return best === null ? null : (RESOURCE_STATUSES[best] ?? null);
}

/** Exactly the four fields the contract allows on a withdrawn or deleted resource. */
export function tombstone(resource: { id: string; status: ResourceStatus; version: number; updated_at: string }): Tombstone {
  const { id, status, version, updated_at } = resource;
  if (!isTombstone(status)) throw new RangeError(`tombstone: ${status} is not a tombstone status`);
  return { id, status, version, updated_at };
}
