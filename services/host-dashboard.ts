import { attentionCandidates, ownersNotConnected } from '../db/host-attention.ts';
import {
  channelsOfProperties, organizationChannels, organizationPropertiesPage, organizationProperty,
  type DashboardChannelRow, type DashboardPropertyRow, type OverviewFilter,
} from '../db/host-dashboard.ts';
import { statsOfProperty } from '../db/listings.ts';
import { legalProjection, nextWithdrawal, type LegalSource } from '../domain/catalogue/legal.ts';
import type { ReportedState } from '../domain/listings/report.ts';
import { addDays, localDate, toInstant } from '../domain/time.ts';
import type { ServiceDeps } from './deps.ts';
import { propertyListings, type ChannelListing } from './listing-reads.ts';
import { reportedState } from './listings.ts';
import { daysBetween } from '../domain/availability/nights.ts';

/**
 * The model of the host's listings dashboard, for one organization: per property and channel the
 * channel's last report, and what the host should act on (a property withdrawn from a channel, a
 * certificate about to lapse, an owner not connected to a channel that lists its properties). The
 * pages only present it (api/host/pages/listings.ts).
 */

type Deps = Pick<ServiceDeps, 'orm' | 'clock'>;

/** A certificate lapsing within this many days is announced. */
export const EXPIRY_WARNING_DAYS = 30;
/** The property page's chart covers this many days, ending on the property's today. */
export const CHART_DAYS = 30;

export interface DashboardReport extends ReportedState {
  updated_at: string;
  received_at: string;
}

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
  | { kind: 'withdrawn'; property: string; propertyName: Record<string, string>; channel: string; reason: 'certificate' | 'other' }
  | { kind: 'expiring'; property: string; propertyName: Record<string, string>; on: string; days: number; channels: string[] }
  | { kind: 'not_connected'; owner: string; ownerName: string; channel: string; properties: number };

/** The overview shows this many properties a page. */
export const OVERVIEW_PAGE_SIZE = 20;

export interface OverviewQuery {
  /** 1-based; past the last page is the last page. */
  page?: number;
  filter?: OverviewFilter;
}

export interface DashboardOverview {
  /** This page's properties. */
  properties: DashboardProperty[];
  /** What to act on across the whole organization, whatever the page and the filter. */
  attention: AttentionItem[];
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

function legalSourceOf(row: DashboardPropertyRow): LegalSource {
  return { country: row.country, classification: row.legal?.classification ?? null, registration_number: row.legal?.registration_number ?? null, identifiers: row.legal?.identifiers ?? [] };
}

function dashboardReport(row: DashboardChannelRow): DashboardReport | null {
  if (row.status === null || row.updated_at === null || row.received_at === null) return null;
  return {
    ...reportedState({ status: row.status, public_url: row.public_url, promoted: row.promoted ?? false, promoted_until: row.promoted_until, rejection_reason: row.rejection_reason, rejection_text: row.rejection_text }),
    updated_at: toInstant(new Date(row.updated_at)),
    received_at: toInstant(new Date(row.received_at)),
  };
}

function visibilityOf(status: string | null): DashboardChannel['visibility'] {
  if (status === 'active' || status === 'inactive') return 'shown';
  if (status === 'withdrawn' || status === 'deleted') return status;
  return 'pending';
}

function dashboardProperty(row: DashboardPropertyRow, channels: DashboardChannelRow[], now: Date): DashboardProperty {
  const today = localDate(now, row.timezone);
  const lapse = nextWithdrawal(legalSourceOf(row), today);
  return {
    ref: row.ref,
    name: row.name,
    ownerRef: row.owner_ref,
    ownerName: row.owner_name,
    timezone: row.timezone,
    today,
    channels: channels.map((c) => ({ name: c.channel, distributed: c.distributed, visibility: visibilityOf(c.view_status), ownerConnectedAt: c.connected_at, report: dashboardReport(c) })),
    nextExpiry: lapse && { on: lapse.on, scheme: lapse.identifier.scheme },
  };
}

type NotConnectedItem = AttentionItem & { kind: 'not_connected' };

/** The withdrawals of `properties`, then their certificates lapsing soon by date. */
function lapseItems(properties: readonly DashboardProperty[], rows: ReadonlyMap<string, DashboardPropertyRow>): AttentionItem[] {
  const withdrawn: AttentionItem[] = [];
  const expiring: (AttentionItem & { kind: 'expiring' })[] = [];
  for (const property of properties) {
    const legal = legalProjection(legalSourceOf(rows.get(property.ref)!), property.today);
    for (const channel of property.channels) {
      if (channel.distributed && channel.visibility === 'withdrawn') {
        withdrawn.push({ kind: 'withdrawn', property: property.ref, propertyName: property.name, channel: channel.name, reason: legal.publishable ? 'other' : 'certificate' });
      }
    }
    if (property.nextExpiry) {
      const days = daysBetween(property.today, property.nextExpiry.on);
      const channels = property.channels.filter((c) => c.visibility === 'shown').map((c) => c.name);
      if (days <= EXPIRY_WARNING_DAYS && channels.length > 0) expiring.push({ kind: 'expiring', property: property.ref, propertyName: property.name, on: property.nextExpiry.on, days, channels });
    }
  }
  expiring.sort((a, b) => a.days - b.days);
  return [...withdrawn, ...expiring];
}

/** Per owner and channel, the properties the channel shows while the owner is not connected to it; in the order the properties first name them. */
function notConnectedItems(properties: readonly DashboardProperty[]): NotConnectedItem[] {
  const owners = new Map<string, NotConnectedItem>();
  for (const property of properties) {
    for (const channel of property.channels) {
      if (channel.visibility !== 'shown' || channel.ownerConnectedAt !== null) continue;
      const key = `${property.ownerRef}\u0000${channel.name}`;
      const entry = owners.get(key) ?? { kind: 'not_connected', owner: property.ownerRef, ownerName: property.ownerName, channel: channel.name, properties: 0 };
      entry.properties += 1;
      owners.set(key, entry);
    }
  }
  return [...owners.values()];
}

/** What the host should act on, most urgent first: withdrawals, then lapses by date, then connections. */
export function attentionItems(properties: readonly DashboardProperty[], rows: ReadonlyMap<string, DashboardPropertyRow>): AttentionItem[] {
  return [...lapseItems(properties, rows), ...notConnectedItems(properties)];
}

function groupByProperty(rows: readonly DashboardChannelRow[]): Map<string, DashboardChannelRow[]> {
  const byProperty = new Map<string, DashboardChannelRow[]>();
  for (const row of rows) {
    const list = byProperty.get(row.property_id);
    if (list) list.push(row);
    else byProperty.set(row.property_id, [row]);
  }
  return byProperty;
}

function propertiesOf(rows: readonly DashboardPropertyRow[], channels: readonly DashboardChannelRow[], now: Date): DashboardProperty[] {
  const byProperty = groupByProperty(channels);
  return rows.map((row) => dashboardProperty(row, byProperty.get(row.id) ?? [], now));
}

/**
 * A property's today is its own zone's date, at most a day either side of the UTC date; the
 * dates a certificate valid through which may lapse within the warning, for any zone.
 */
function lapseWindow(now: Date): string[] {
  const utc = localDate(now, 'UTC');
  return Array.from({ length: EXPIRY_WARNING_DAYS + 4 }, (_, i) => addDays(utc, i - 2));
}

/**
 * What to act on across the organization, every property looked at: the withdrawals and lapses
 * of the few properties that may have one, read whole; the owners' connections counted in SQL.
 */
async function organizationAttention(deps: Deps, organizationId: string, now: Date): Promise<AttentionItem[]> {
  const [rows, owners] = await Promise.all([
    attentionCandidates(deps.orm.em.fork(), organizationId, lapseWindow(now)),
    ownersNotConnected(deps.orm.em.fork(), organizationId),
  ]);
  const properties = propertiesOf(rows, await channelsOfProperties(deps.orm.em.fork(), rows.map((row) => row.id)), now);
  const notConnected = owners.map((o): AttentionItem => ({ kind: 'not_connected', owner: o.owner_ref, ownerName: o.owner_name, channel: o.channel, properties: Number(o.properties) }));
  return [...lapseItems(properties, new Map(rows.map((row) => [row.ref, row]))), ...notConnected];
}

/** The page of the overview the query asks for (past the last is the last), the filter and the channels it can name. */
async function overviewPage(deps: Deps, organizationId: string, query: OverviewQuery, now: Date): Promise<Omit<DashboardOverview, 'attention'>> {
  const asked = query.filter ?? { channel: null, status: null };
  const wanted = Math.max(1, Math.floor(query.page ?? 1));
  const read = (filter: OverviewFilter, page: number) =>
    organizationPropertiesPage(deps.orm.em.fork(), organizationId, filter, { limit: OVERVIEW_PAGE_SIZE, offset: (page - 1) * OVERVIEW_PAGE_SIZE });
  // The page is read under the filter asked for while the channels are read; a channel the
  // organization has nothing on is no filter, and only then is the page read again.
  const [channels, optimistic] = await Promise.all([organizationChannels(deps.orm.em.fork(), organizationId), read(asked, wanted)]);
  const filter = { channel: asked.channel !== null && channels.includes(asked.channel) ? asked.channel : null, status: asked.status };
  const first = filter.channel === asked.channel ? optimistic : await read(filter, wanted);
  const pages = Math.max(1, Math.ceil(first.total / OVERVIEW_PAGE_SIZE));
  const page = Math.min(wanted, pages);
  const { rows, total } = page === wanted ? first : await read(filter, page);
  const properties = propertiesOf(rows, await channelsOfProperties(deps.orm.em.fork(), rows.map((row) => row.id)), now);
  return { properties, total, page, pages, pageSize: OVERVIEW_PAGE_SIZE, channels, filter };
}

export async function listingsOverview(deps: Deps, organizationId: string, query: OverviewQuery = {}): Promise<DashboardOverview> {
  const now = deps.clock.now();
  const [listed, attention] = await Promise.all([overviewPage(deps, organizationId, query, now), organizationAttention(deps, organizationId, now)]);
  return { ...listed, attention };
}

export interface ChartSeries {
  channel: string;
  /** One entry per day of the chart, oldest first; null counts where the channel reported nothing. */
  days: { date: string; views: number | null; clicks_to_booking: number | null }[];
}

export interface PropertyDashboard {
  property: DashboardProperty;
  /** The reports with their history, by channel name. */
  listings: Map<string, ChannelListing>;
  chart: { from: string; to: string; series: ChartSeries[] };
  attention: AttentionItem[];
}

/** One property of the organization with its reports' history and 30 days of figures; null for another organization's or an unknown reference. */
export async function propertyDashboard(deps: Deps, organizationId: string, ref: string): Promise<PropertyDashboard | null> {
  const em = deps.orm.em.fork();
  const row = await organizationProperty(em, organizationId, ref);
  if (!row) return null;
  const property = dashboardProperty(row, await channelsOfProperties(em, [row.id]), deps.clock.now());
  const from = addDays(property.today, -(CHART_DAYS - 1));
  const to = addDays(property.today, 1);
  const [history, stats] = await Promise.all([propertyListings(deps, ref), statsOfProperty(em.fork(), row.id, from, to)]);
  const dates = Array.from({ length: CHART_DAYS }, (_, i) => addDays(from, i));
  const names = [...new Set([...property.channels.map((c) => c.name), ...stats.map((s) => s.channel)])].sort();
  const series = names.map((channel) => {
    const byDate = new Map(stats.filter((s) => s.channel === channel).map((s) => [s.day, s]));
    return { channel, days: dates.map((date) => ({ date, views: byDate.get(date)?.views ?? null, clicks_to_booking: byDate.get(date)?.clicks_to_booking ?? null })) };
  });
  return {
    property,
    listings: new Map(history.data.map((listing) => [listing.channel, listing])),
    chart: { from, to, series },
    attention: attentionItems([property], new Map([[row.ref, row]])),
  };
}
