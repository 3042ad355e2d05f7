import { canonicalJson } from '../../domain/catalogue/projection.ts';
import type { TestApi } from './api.ts';

/**
 * A listing channel written from the contract alone (SPEC.md, "Conventions", "Common list
 * parameters", "Resource status"): it pulls the three catalogue lists the way a partner would and
 * keeps its own copy. Tests compare that copy with what the service shows the channel now.
 *
 * - The first sync of a list is a full sync: every page through `next_cursor`, no `updated_since`.
 * - Later syncs send `updated_since` = the largest `updated_at` received on that list so far (it
 *   is inclusive, so no overlap is added) and page to the end; tombstones come with them.
 * - A record is applied only when its `version` is higher than the one held. A lower version is
 *   ignored and noted as a violation, as is an equal version with a different body.
 * - A `withdrawn` or `deleted` record is a tombstone: it replaces what was held and is not visible.
 */

export type CatalogueKind = 'locations' | 'owners' | 'properties';
export const CATALOGUE_KINDS: readonly CatalogueKind[] = ['locations', 'owners', 'properties'];

export interface ChannelRecord {
  id: string;
  status: string;
  version: number;
  updated_at: string;
  [field: string]: unknown;
}

const VISIBLE_STATUSES: readonly string[] = ['active', 'inactive'];
const TOMBSTONE_STATUSES: readonly string[] = ['withdrawn', 'deleted'];
const TOMBSTONE_FIELDS = ['id', 'status', 'updated_at', 'version'];

export function isVisible(record: ChannelRecord): boolean {
  return VISIBLE_STATUSES.includes(record.status);
}

export function isTombstone(record: ChannelRecord): boolean {
  return TOMBSTONE_STATUSES.includes(record.status);
}

/** What one sync did, for tests that want to look closer. */
export interface SyncReport {
  requests: number;
  received: Record<CatalogueKind, number>;
  applied: Record<CatalogueKind, number>;
  /** The `updated_since` sent per list, or null for a full sync. */
  since: Record<CatalogueKind, string | null>;
}

export class ReferenceChannel {
  /** Every time the service broke the version rule or the tombstone shape, in words. */
  readonly violations: string[] = [];
  private readonly api: TestApi;
  private readonly key: string;
  private readonly limit: number;
  private readonly base: string;
  private readonly held: Record<CatalogueKind, Map<string, ChannelRecord>> = {
    locations: new Map(),
    owners: new Map(),
    properties: new Map(),
  };
  /** Largest `updated_at` received per list (as sent by the service), absent until one was received. */
  private readonly watermark: Partial<Record<CatalogueKind, { text: string; ms: number }>> = {};

  constructor(api: TestApi, key: string, options: { limit?: number; base?: string } = {}) {
    this.api = api;
    this.key = key;
    this.limit = options.limit ?? 100;
    this.base = options.base ?? '/api/v1/distribution';
  }

  async sync(): Promise<SyncReport> {
    const report: SyncReport = {
      requests: 0,
      received: { locations: 0, owners: 0, properties: 0 },
      applied: { locations: 0, owners: 0, properties: 0 },
      since: { locations: null, owners: null, properties: null },
    };
    for (const kind of CATALOGUE_KINDS) await this.syncList(kind, report);
    return report;
  }

  /** Active and inactive records held, by id. */
  visible(kind: CatalogueKind): Map<string, ChannelRecord> {
    return new Map([...this.held[kind]].filter(([, record]) => isVisible(record)));
  }

  /** Everything held, tombstones included, by id. */
  all(kind: CatalogueKind): Map<string, ChannelRecord> {
    return new Map(this.held[kind]);
  }

  private async syncList(kind: CatalogueKind, report: SyncReport): Promise<void> {
    // Without a watermark nothing was ever received on this list: a full sync (again) is exact.
    const since = this.watermark[kind]?.text;
    report.since[kind] = since ?? null;
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: String(this.limit) });
      if (since !== undefined) query.set('updated_since', since);
      if (cursor !== null) query.set('cursor', cursor);
      const res = await this.api.call('GET', `${this.base}/${kind}?${query.toString()}`, { key: this.key });
      report.requests += 1;
      if (res.status !== 200) throw new Error(`GET /${kind}?${query.toString()} answered ${res.status}: ${res.text}`);
      const page = res.json as { data: ChannelRecord[]; next_cursor: string | null };
      for (const record of page.data) {
        report.received[kind] += 1;
        if (this.apply(kind, record)) report.applied[kind] += 1;
        this.raiseWatermark(kind, record.updated_at);
      }
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  private raiseWatermark(kind: CatalogueKind, updatedAt: string): void {
    const ms = Date.parse(updatedAt);
    if (Number.isNaN(ms)) {
      this.violations.push(`${kind}: updated_at ${JSON.stringify(updatedAt)} is not an instant`);
      return;
    }
    const current = this.watermark[kind];
    if (!current || ms > current.ms) this.watermark[kind] = { text: updatedAt, ms };
  }

  /** Applies one received record by the version rule; true when it replaced what was held. */
  private apply(kind: CatalogueKind, record: ChannelRecord): boolean {
    if (isTombstone(record)) {
      const fields = Object.keys(record).sort();
      if (canonicalJson(fields) !== canonicalJson(TOMBSTONE_FIELDS)) {
        this.violations.push(`${kind} ${record.id}: tombstone carries fields ${fields.join(',')}`);
      }
    }
    if (!Number.isInteger(record.version) || record.version < 1) {
      this.violations.push(`${kind} ${record.id}: version ${String(record.version)} is not an integer >= 1`);
      return false;
    }
    const held = this.held[kind].get(record.id);
    if (held) {
      if (record.version < held.version) {
        this.violations.push(
          `${kind} ${record.id}: version went down from ${held.version} (${held.status}) to ${record.version} (${record.status})`,
        );
        return false;
      }
      if (record.version === held.version) {
        if (canonicalJson(record) !== canonicalJson(held)) {
          this.violations.push(`${kind} ${record.id}: version ${record.version} came with two different bodies`);
        }
        return false;
      }
      if (held.status === 'deleted') {
        this.violations.push(
          `${kind} ${record.id}: came back as ${record.status} (version ${record.version}) after deletion`,
        );
      }
    }
    this.held[kind].set(record.id, record);
    return true;
  }
}
