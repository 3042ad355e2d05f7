import type { ChannelClient } from './client.ts';
import { isProblem } from './problem.ts';
import { MemorySyncStore, type CatalogueList, type HeldRecord, type SyncStore } from './sync-store.ts';

/**
 * Keeps a channel's copy of what is published to it right, by the contract's rules:
 * - a list's first sync is a full listing (every page, no `updated_since`); a later one sends back
 *   the largest `updated_at` received on it (inclusive: no overlap added) and brings tombstones;
 * - a record replaces the one held only when its `version` is higher; a `withdrawn` or `deleted`
 *   tombstone replaces it too and is no longer shown;
 * - 410 `sync_window_expired` (the watermark is over 35 days old) starts the list again from a full
 *   listing, after which records held but no longer listed are dropped;
 * - an event (a verified webhook, or one read from `GET /events`) says what to read: a property at a
 *   higher version than held is read again, a location, owner or amenity brings its list up to date
 *   (there is no read of one), and `availability.updated` always re-reads its nights.
 * What the service sends against those rules (a version going down, two bodies under one version, a
 * tombstone with more fields) is ignored and told to `onAnomaly`.
 */

export interface SyncOptions {
  /** Where the copy is kept; default in memory. */
  store?: SyncStore;
  /** The lists `sync()` walks; default locations, owners and properties. */
  lists?: readonly CatalogueList[];
  /** Whether `sync()` also pulls `/availability` (default false: nights come by event). */
  availability?: boolean;
  /** `limit` of each page (1 to 500; default 100). */
  pageSize?: number;
  onAnomaly?: (anomaly: SyncAnomaly) => void;
}

export interface SyncAnomaly {
  list: CatalogueList;
  id?: string;
  message: string;
}

export interface SyncReport {
  /** Pages read. */
  requests: number;
  received: Partial<Record<CatalogueList, number>>;
  applied: Partial<Record<CatalogueList, number>>;
  /** The `updated_since` sent per list, or null for a full listing. */
  since: Partial<Record<CatalogueList, string | null>>;
  /** Lists started again after 410 `sync_window_expired`. */
  resynced: CatalogueList[];
}

/** What an event led to. */
export type EventOutcome = 'read' | 'up_to_date' | 'ignored';

/** The event fields the helper reads: a webhook's body and a `GET /events` record both have them. */
export interface ChannelEvent {
  type: string;
  data: { object?: string; id: string; version?: number; from?: string; to?: string };
}

const TOMBSTONE_STATUSES: readonly string[] = ['withdrawn', 'deleted'];
const TOMBSTONE_FIELDS = 'id,status,updated_at,version';
const LIST_OF_KIND: Record<string, CatalogueList> = {
  location: 'locations',
  owner: 'owners',
  property: 'properties',
  amenity: 'amenities',
};
const MAX_WINDOW_NIGHTS = 365;
const DAY_MS = 86_400_000;

/** JSON with object keys sorted at every level: equal for equal records whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** `[from, to)` in windows of at most 365 nights, as `GET /availability` takes them. */
function windows(from: string, to: string): [string, string][] {
  const out: [string, string][] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let start = Date.parse(`${from}T00:00:00Z`); start < end; start += MAX_WINDOW_NIGHTS * DAY_MS) {
    const stop = Math.min(end, start + MAX_WINDOW_NIGHTS * DAY_MS);
    out.push([new Date(start).toISOString().slice(0, 10), new Date(stop).toISOString().slice(0, 10)]);
  }
  return out;
}

export class ChannelSync {
  readonly store: SyncStore;
  readonly #client: ChannelClient;
  readonly #lists: readonly CatalogueList[];
  readonly #availability: boolean;
  readonly #limit: number;
  readonly #onAnomaly: (anomaly: SyncAnomaly) => void;

  constructor(client: ChannelClient, options: SyncOptions = {}) {
    this.#client = client;
    this.store = options.store ?? new MemorySyncStore();
    this.#lists = options.lists ?? ['locations', 'owners', 'properties'];
    this.#availability = options.availability ?? false;
    this.#limit = options.pageSize ?? 100;
    this.#onAnomaly = options.onAnomaly ?? (() => undefined);
  }

  /** Brings every list (and the nights, with `availability`) up to date. */
  async sync(): Promise<SyncReport> {
    const report: SyncReport = { requests: 0, received: {}, applied: {}, since: {}, resynced: [] };
    for (const list of this.#lists) await this.syncList(list, report);
    if (this.#availability) await this.#syncAvailability(report);
    return report;
  }

  /** Brings one list up to date: a full listing the first time, else the changes since its watermark. */
  async syncList(list: CatalogueList, report?: SyncReport): Promise<SyncReport> {
    const out = report ?? { requests: 0, received: {}, applied: {}, since: {}, resynced: [] };
    const since = await this.store.watermark(list);
    try {
      await this.#walk(list, since, out);
    } catch (error) {
      if (since === undefined || !isProblem(error, 'sync_window_expired')) throw error;
      await this.store.setWatermark(list, undefined);
      out.resynced.push(list);
      await this.#walk(list, undefined, out);
    }
    return out;
  }

  /** Acts on one event; delivery is at least once and in any order, and acting twice is harmless. */
  async handleEvent(event: ChannelEvent): Promise<EventOutcome> {
    if (event.type === 'availability.updated') {
      await this.#readNights(event.data.id, event.data.from, event.data.to);
      return 'read';
    }
    const list = LIST_OF_KIND[event.data.object ?? event.type.split('.')[0]!];
    if (list === undefined || typeof event.data.version !== 'number') return 'ignored';
    const held = await this.store.get(list, event.data.id);
    if (held && held.version >= event.data.version) return 'up_to_date';
    if (list === 'properties') {
      const { data } = await this.#client.GET('/properties/{property_id}', {
        params: { path: { property_id: event.data.id } },
      });
      if (data) await this.#apply(list, data);
    } else {
      await this.syncList(list);
    }
    return 'read';
  }

  async #walk(list: CatalogueList, since: string | undefined, report: SyncReport): Promise<void> {
    report.since[list] = since ?? null;
    // A full listing shows only what is shown now: what was held and is not listed is gone.
    const listed = since === undefined ? new Set<string>() : undefined;
    let top = since === undefined ? undefined : { text: since, ms: Date.parse(since) };
    const query = { limit: this.#limit, ...(since === undefined ? {} : { updated_since: since }) };
    for await (const page of this.#client.pages(`/${list}`, { params: { query } })) {
      report.requests += 1;
      for (const record of page.data as HeldRecord[]) {
        report.received[list] = (report.received[list] ?? 0) + 1;
        listed?.add(record.id);
        if (await this.#apply(list, record)) report.applied[list] = (report.applied[list] ?? 0) + 1;
        const ms = Date.parse(record.updated_at);
        if (Number.isNaN(ms))
          this.#onAnomaly({
            list,
            message: `${list}: updated_at ${JSON.stringify(record.updated_at)} is not an instant`,
          });
        else if (!top || ms > top.ms) top = { text: record.updated_at, ms };
      }
      // Records come in `updated_at` order and `updated_since` is inclusive: a watermark kept after
      // each page of changes loses nothing if the walk stops. A full listing keeps it only at its end.
      if (!listed && top) await this.store.setWatermark(list, top.text);
    }
    if (listed) {
      await this.store.prune(list, listed);
      if (top) await this.store.setWatermark(list, top.text);
    }
  }

  /** Applies one received record by the version rule; true when it replaced what was held. */
  async #apply(list: CatalogueList, record: HeldRecord): Promise<boolean> {
    const { id, version, status } = record;
    if (TOMBSTONE_STATUSES.includes(status)) {
      const fields = Object.keys(record).sort();
      if (fields.join(',') !== TOMBSTONE_FIELDS)
        this.#onAnomaly({ list, id, message: `${list} ${id}: tombstone carries fields ${fields.join(',')}` });
    }
    if (!Number.isInteger(version) || version < 1) {
      this.#onAnomaly({ list, id, message: `${list} ${id}: version ${String(version)} is not an integer >= 1` });
      return false;
    }
    const held = await this.store.get(list, id);
    if (held) {
      if (version < held.version) {
        this.#onAnomaly({
          list,
          id,
          message: `${list} ${id}: version went down from ${held.version} (${held.status}) to ${version} (${status})`,
        });
        return false;
      }
      if (version === held.version) {
        if (canonical(record) !== canonical(held))
          this.#onAnomaly({ list, id, message: `${list} ${id}: version ${version} came with two different bodies` });
        return false;
      }
      if (held.status === 'deleted')
        this.#onAnomaly({
          list,
          id,
          message: `${list} ${id}: came back as ${status} (version ${version}) after deletion`,
        });
    }
    await this.store.put(list, record);
    return true;
  }

  /** Re-reads a property's nights, in windows of at most 365; its whole window when none is given. */
  async #readNights(propertyId: string, from: string | undefined, to: string | undefined): Promise<void> {
    const ranges: ([string, string] | [undefined, undefined])[] =
      from !== undefined && to !== undefined ? windows(from, to) : [[undefined, undefined]];
    for (const [start, end] of ranges) {
      const query = { property_id: propertyId, ...(start === undefined ? {} : { from: start, to: end }) };
      try {
        for await (const record of this.#client.paginate('/availability', { params: { query } }))
          if ('property_id' in record) await this.store.putNights(record);
      } catch (error) {
        // A range past what is published now (rolled off, or beyond the horizon): read what is.
        if (start === undefined || !isProblem(error) || error.status !== 400) throw error;
        return this.#readNights(propertyId, undefined, undefined);
      }
    }
  }

  async #syncAvailability(report: SyncReport): Promise<void> {
    const since = await this.store.watermark('availability');
    try {
      await this.#walkAvailability(since, report);
    } catch (error) {
      if (since === undefined || !isProblem(error, 'sync_window_expired')) throw error;
      await this.store.setWatermark('availability', undefined);
      await this.#walkAvailability(undefined, report);
    }
  }

  async #walkAvailability(since: string | undefined, report: SyncReport): Promise<void> {
    let top = since;
    const query = { limit: this.#limit, ...(since === undefined ? {} : { updated_since: since }) };
    for await (const page of this.#client.pages('/availability', { params: { query } })) {
      report.requests += 1;
      for (const record of page.data) {
        // A tombstone (`updated_since` only): the property is withdrawn or deleted, its nights not for sale.
        if ('property_id' in record) await this.store.putNights(record);
        else await this.store.dropNights?.(record.id);
        if (top === undefined || Date.parse(record.updated_at) > Date.parse(top)) top = record.updated_at;
      }
    }
    if (top !== undefined) await this.store.setWatermark('availability', top);
  }
}
