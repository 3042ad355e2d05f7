import type { DashboardChannelRecord, DashboardPropertyRecord, OverviewFilter } from '../db/host-dashboard.ts';
import type { ListingReport } from '../db/listings.ts';
import { legalProjection, nextWithdrawal, type LegalSource } from '../domain/catalogue/legal.ts';
import { localDate } from '../domain/time.ts';
import { reportRecord, type ReportRecord } from './listings.ts';
import { daysBetween } from '../domain/availability/nights.ts';

/**
 * The listings dashboard's model built from the records db/host-dashboard.ts reads: per property
 * and channel the channel's last report and visibility, and the attention items (withdrawals,
 * lapsing certificates, rejections, owners not connected) in the order the host should act on them. No I/O:
 * services/host-dashboard.ts reads.
 */

/** A certificate lapsing within this many days is announced. */
export const EXPIRY_WARNING_DAYS = 30;
/** The property page's chart covers this many days, ending on the property's today. */
export const CHART_DAYS = 30;

export type DashboardReport = ReportRecord;

export interface DashboardChannel {
  name: string;
  /** The host distributes the property to this channel now. */
  distributed: boolean;
  /** `shown` (active or inactive in the channel's view), `withdrawn`, `deleted`, or `pending` (distributed, not shown yet). */
  visibility: 'shown' | 'withdrawn' | 'deleted' | 'pending';
  ownerConnectedAt: string | null;
  /** The channel's last report, or null when it sent none. */
  report: DashboardReport | null;
}

export interface DashboardProperty {
  ref: string;
  name: Record<string, string>;
  ownerRef: string;
  ownerName: string;
  timezone: string;
  /** The property's local date now. */
  today: string;
  channels: DashboardChannel[];
  /** The next lapse of a dated identifier that withdraws it, when one lies ahead. */
  nextExpiry: { on: string; scheme: string } | null;
}

export type AttentionItem =
  | {
      kind: 'withdrawn';
      property: string;
      propertyName: Record<string, string>;
      channel: string;
      reason: 'certificate' | 'other';
    }
  | {
      kind: 'rejected';
      property: string;
      propertyName: Record<string, string>;
      channel: string;
      /** The channel's reason code, as it sent it (`photos`, `description`, … or a word of its own). */
      reason: string;
      text: string | null;
    }
  | {
      kind: 'expiring';
      property: string;
      propertyName: Record<string, string>;
      on: string;
      days: number;
      channels: string[];
    }
  | { kind: 'not_connected'; owner: string; ownerName: string; channel: string; properties: number };

/** The overview shows this many properties a page. */
export const OVERVIEW_PAGE_SIZE = 20;

/**
 * The overview's "to act on" lists at most this many items, the most urgent first. A host takes
 * in about a page of properties at once (`OVERVIEW_PAGE_SIZE`, the same 20), and an
 * organization with hundreds of rejected listings would otherwise get hundreds of items above
 * its properties: a page whose statements and size follow the organization's data, not what one
 * page shows. The items past these are counted, with where the host sees them.
 */
export const ATTENTION_LIMIT = 20;

/** What to act on past the items the overview lists, and where the host sees it. */
export interface AttentionMore {
  /** How many items there are past those listed. */
  count: number;
  /** A withdrawal is not listed: the overview filtered on withdrawals shows each. */
  withdrawn: boolean;
  /** The channels, by name, that rejected a listing not listed: the overview filtered on the channel and `rejected` shows each. */
  rejectedBy: string[];
  /** An owner not connected is not listed: the owners page shows every connection. */
  notConnected: boolean;
}

/** How many items of each kind there are in all, across the organization (db/host-attention.ts counts them). */
export interface AttentionCounts {
  withdrawn: number;
  /** Per channel, by name. */
  rejected: Readonly<Record<string, number>>;
  /** Lapses are not counted here: every property that may lapse is read, so its items are all in the list given. */
  notConnected: number;
}

/**
 * The first `ATTENTION_LIMIT` of `items` and what lies past them. `items` holds at least the
 * first `ATTENTION_LIMIT` items of the organization's list, in its order, and every lapse; `counts`
 * counts the rest.
 */
export function limitAttention(
  items: readonly AttentionItem[],
  counts: AttentionCounts,
): { attention: AttentionItem[]; attentionMore: AttentionMore } {
  const attention = items.slice(0, ATTENTION_LIMIT);
  const listed = (kind: AttentionItem['kind'], channel?: string) =>
    attention.filter(
      (item) => item.kind === kind && (channel === undefined || ('channel' in item && item.channel === channel)),
    ).length;
  const rejectedBy = Object.keys(counts.rejected)
    .filter((channel) => counts.rejected[channel]! > listed('rejected', channel))
    .sort();
  const total =
    counts.withdrawn +
    Object.values(counts.rejected).reduce((sum, n) => sum + n, 0) +
    items.filter((item) => item.kind === 'expiring').length +
    counts.notConnected;
  return {
    attention,
    attentionMore: {
      count: Math.max(0, total - attention.length),
      withdrawn: counts.withdrawn > listed('withdrawn'),
      rejectedBy,
      notConnected: counts.notConnected > listed('not_connected'),
    },
  };
}

export interface OverviewQuery {
  /** 1-based; past the last page is the last page. */
  page?: number;
  filter?: OverviewFilter;
}

export interface DashboardOverview {
  /** This page's properties. */
  properties: DashboardProperty[];
  /** What to act on across the whole organization, whatever the page and the filter: its first `ATTENTION_LIMIT` items. */
  attention: AttentionItem[];
  /** What to act on past those. */
  attentionMore: AttentionMore;
  /** The properties that pass the filter, on every page. */
  total: number;
  page: number;
  pages: number;
  pageSize: number;
  /** The channels the filter can name: those of the organization's properties. */
  channels: string[];
  /** The filter applied (a channel the organization has nothing on is no filter). */
  filter: OverviewFilter;
}

function legalSourceOf(record: DashboardPropertyRecord): LegalSource {
  return {
    country: record.country,
    classification: record.legal?.classification ?? null,
    registration_number: record.legal?.registration_number ?? null,
    identifiers: record.legal?.identifiers ?? [],
  };
}

function dashboardReport(report: ListingReport | null): DashboardReport | null {
  return report === null ? null : reportRecord(report);
}

function visibilityOf(status: string | null): DashboardChannel['visibility'] {
  if (status === 'active' || status === 'inactive') return 'shown';
  if (status === 'withdrawn' || status === 'deleted') return status;
  return 'pending';
}

export function dashboardProperty(
  record: DashboardPropertyRecord,
  channels: DashboardChannelRecord[],
  now: Date,
): DashboardProperty {
  const today = localDate(now, record.timezone);
  const lapse = nextWithdrawal(legalSourceOf(record), today);
  return {
    ref: record.ref,
    name: record.name,
    ownerRef: record.ownerRef,
    ownerName: record.ownerName,
    timezone: record.timezone,
    today,
    channels: channels.map((c) => ({
      name: c.channel,
      distributed: c.distributed,
      visibility: visibilityOf(c.viewStatus),
      ownerConnectedAt: c.ownerConnectedAt,
      report: dashboardReport(c.report),
    })),
    nextExpiry: lapse && { on: lapse.on, scheme: lapse.identifier.scheme },
  };
}

type NotConnectedItem = AttentionItem & { kind: 'not_connected' };

/**
 * What `properties` themselves ask of the host: withdrawals, then certificates lapsing soon by
 * date (each withdraws its listings on a day of its own, so it comes before what has no date),
 * then listings a channel they are distributed to rejected (the one thing a channel asks the
 * host to fix). With the list capped (`ATTENTION_LIMIT`), many rejections do not push a lapse
 * out of it.
 */
export function propertyItems(
  properties: readonly DashboardProperty[],
  records: ReadonlyMap<string, DashboardPropertyRecord>,
): AttentionItem[] {
  const withdrawn: AttentionItem[] = [];
  const rejected: AttentionItem[] = [];
  const expiring: (AttentionItem & { kind: 'expiring' })[] = [];
  for (const property of properties) {
    const legal = legalProjection(legalSourceOf(records.get(property.ref)!), property.today);
    for (const channel of property.channels) {
      if (channel.distributed && channel.visibility === 'withdrawn') {
        withdrawn.push({
          kind: 'withdrawn',
          property: property.ref,
          propertyName: property.name,
          channel: channel.name,
          reason: legal.publishable ? 'other' : 'certificate',
        });
      } else if (channel.distributed && channel.visibility === 'shown' && channel.report?.status === 'rejected') {
        rejected.push({
          kind: 'rejected',
          property: property.ref,
          propertyName: property.name,
          channel: channel.name,
          reason: channel.report.rejection?.reason ?? '',
          text: channel.report.rejection?.text ?? null,
        });
      }
    }
    if (property.nextExpiry) {
      const days = daysBetween(property.today, property.nextExpiry.on);
      const channels = property.channels.filter((c) => c.visibility === 'shown').map((c) => c.name);
      if (days <= EXPIRY_WARNING_DAYS && channels.length > 0)
        expiring.push({
          kind: 'expiring',
          property: property.ref,
          propertyName: property.name,
          on: property.nextExpiry.on,
          days,
          channels,
        });
    }
  }
  expiring.sort((a, b) => a.days - b.days);
  return [...withdrawn, ...expiring, ...rejected];
}

/** Per owner and channel, the properties the channel shows while the owner is not connected to it; in the order the properties first name them. */
function notConnectedItems(properties: readonly DashboardProperty[]): NotConnectedItem[] {
  const owners = new Map<string, NotConnectedItem>();
  for (const property of properties) {
    for (const channel of property.channels) {
      if (channel.visibility !== 'shown' || channel.ownerConnectedAt !== null) continue;
      const key = `${property.ownerRef}\u0000${channel.name}`;
      const entry = owners.get(key) ?? {
        kind: 'not_connected',
        owner: property.ownerRef,
        ownerName: property.ownerName,
        channel: channel.name,
        properties: 0,
      };
      entry.properties += 1;
      owners.set(key, entry);
    }
  }
  return [...owners.values()];
}

/** What the host should act on, most urgent first: withdrawals, rejections, lapses by date, then connections. */
export function attentionItems(
  properties: readonly DashboardProperty[],
  records: ReadonlyMap<string, DashboardPropertyRecord>,
): AttentionItem[] {
  return [...propertyItems(properties, records), ...notConnectedItems(properties)];
}

function groupByProperty(channels: readonly DashboardChannelRecord[]): Map<string, DashboardChannelRecord[]> {
  const byProperty = new Map<string, DashboardChannelRecord[]>();
  for (const channel of channels) {
    const list = byProperty.get(channel.propertyId);
    if (list) list.push(channel);
    else byProperty.set(channel.propertyId, [channel]);
  }
  return byProperty;
}

export function propertiesOf(
  records: readonly DashboardPropertyRecord[],
  channels: readonly DashboardChannelRecord[],
  now: Date,
): DashboardProperty[] {
  const byProperty = groupByProperty(channels);
  return records.map((record) => dashboardProperty(record, byProperty.get(record.id) ?? [], now));
}
