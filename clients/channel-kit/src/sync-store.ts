import type { components } from './generated/schema.ts';

/** The lists a channel keeps a copy of. */
export type CatalogueList = 'locations' | 'owners' | 'properties' | 'amenities';
export const CATALOGUE_LISTS: readonly CatalogueList[] = ['locations', 'owners', 'properties', 'amenities'];

/** A record as listed: full, or a tombstone (`{id, status, version, updated_at}` once withdrawn or deleted). */
export interface HeldRecord {
  id: string;
  status: string;
  version: number;
  updated_at: string;
  [field: string]: unknown;
}

export type AvailabilityRecord = components['schemas']['AvailabilityRecord'];
export type Night = AvailabilityRecord['data'][number];

const VISIBLE: readonly string[] = ['active', 'inactive'];

/** `active` and `inactive` records are shown; `withdrawn`, `deleted` and any status v1 adds are not. */
export function isVisible(record: HeldRecord): boolean {
  return VISIBLE.includes(record.status);
}

/**
 * Where the channel's copy lives: a database table per list in a real channel. Every method may
 * answer a promise. The sync helper decides what to write; the store only keeps it.
 */
export interface SyncStore {
  get(list: CatalogueList, id: string): HeldRecord | undefined | Promise<HeldRecord | undefined>;
  /** Keeps `record` in place of what was held under its id (a tombstone included). */
  put(list: CatalogueList, record: HeldRecord): void | Promise<void>;
  /** After a full listing: drops every shown record whose id was not listed (withdrawn or deleted meanwhile). */
  prune(list: CatalogueList, listed: ReadonlySet<string>): void | Promise<void>;
  /** The largest `updated_at` received on the list, as sent; undefined until one was, or after a 410. */
  watermark(list: CatalogueList | 'availability'): string | undefined | Promise<string | undefined>;
  setWatermark(list: CatalogueList | 'availability', updatedAt: string | undefined): void | Promise<void>;
  /** A property's nights as read: each night replaces the one held for its date. */
  putNights(record: AvailabilityRecord): void | Promise<void>;
  /** Forgets a property's nights: the availability listing showed its tombstone (withdrawn or deleted). */
  dropNights?(propertyId: string): void | Promise<void>;
}

/** The copy in memory, for tests and small channels; `visible`, `all` and `nights` read it. */
export class MemorySyncStore implements SyncStore {
  readonly #lists = new Map<CatalogueList, Map<string, HeldRecord>>(CATALOGUE_LISTS.map((list) => [list, new Map()]));
  readonly #watermarks = new Map<string, string>();
  readonly #nights = new Map<string, Map<string, Night>>();

  get(list: CatalogueList, id: string): HeldRecord | undefined {
    return this.#lists.get(list)!.get(id);
  }
  put(list: CatalogueList, record: HeldRecord): void {
    this.#lists.get(list)!.set(record.id, record);
  }
  prune(list: CatalogueList, listed: ReadonlySet<string>): void {
    const held = this.#lists.get(list)!;
    for (const [id, record] of held) if (isVisible(record) && !listed.has(id)) held.delete(id);
  }
  watermark(list: CatalogueList | 'availability'): string | undefined {
    return this.#watermarks.get(list);
  }
  setWatermark(list: CatalogueList | 'availability', updatedAt: string | undefined): void {
    if (updatedAt === undefined) this.#watermarks.delete(list);
    else this.#watermarks.set(list, updatedAt);
  }
  putNights(record: AvailabilityRecord): void {
    let nights = this.#nights.get(record.property_id);
    if (!nights) {
      nights = new Map<string, Night>();
      this.#nights.set(record.property_id, nights);
    }
    for (const night of record.data) nights.set(night.date, night);
  }
  dropNights(propertyId: string): void {
    this.#nights.delete(propertyId);
  }

  /** Shown (`active`, `inactive`) records held, by id. */
  visible(list: CatalogueList): Map<string, HeldRecord> {
    return new Map([...this.#lists.get(list)!].filter(([, record]) => isVisible(record)));
  }
  /** Everything held, tombstones included, by id. */
  all(list: CatalogueList): Map<string, HeldRecord> {
    return new Map(this.#lists.get(list));
  }
  /** A property's nights held, by date. */
  nights(propertyId: string): Map<string, Night> {
    return new Map(this.#nights.get(propertyId) ?? []);
  }
}
