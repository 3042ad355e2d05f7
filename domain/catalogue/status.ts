/** The contract's resource statuses: `active` and `inactive` records are served whole, `withdrawn` and `deleted` as tombstones. */
export const RESOURCE_STATUSES = ['active', 'inactive', 'withdrawn', 'deleted'] as const;
export type ResourceStatus = (typeof RESOURCE_STATUSES)[number];
