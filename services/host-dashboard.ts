import { attentionCandidates, ownersNotConnected } from '../db/host-attention.ts';
import {
  channelsOfProperties,
  organizationChannels,
  organizationPropertiesPage,
  organizationProperty,
  type OverviewFilter,
} from '../db/host-dashboard.ts';
import { statsOfProperty } from '../db/listings.ts';
import { addDays, localDate } from '../domain/time.ts';
import type { ServiceDeps } from './deps.ts';
import { propertyListings, type ChannelListing } from './listing-reads.ts';
import {
  ATTENTION_LIMIT,
  EXPIRY_WARNING_DAYS,
  CHART_DAYS,
  type DashboardProperty,
  type AttentionItem,
  OVERVIEW_PAGE_SIZE,
  type OverviewQuery,
  type DashboardOverview,
  dashboardProperty,
  propertyItems,
  attentionItems,
  limitAttention,
  propertiesOf,
} from './host-dashboard-model.ts';

/**
 * The model of the host's listings dashboard, for one organization: per property and channel the
 * channel's last report, and what the host should act on (a property withdrawn from a channel, a
 * listing a channel rejected, a certificate about to lapse, an owner not connected to a channel
 * that lists its properties). The pages only present it (api/host/pages/listings.ts).
 */

type Deps = Pick<ServiceDeps, 'orm' | 'clock'>;

/**
 * A property's today is its own zone's date, at most a day either side of the UTC date; the
 * dates a certificate valid through which may lapse within the warning, for any zone.
 */
function lapseWindow(now: Date): string[] {
  const utc = localDate(now, 'UTC');
  return Array.from({ length: EXPIRY_WARNING_DAYS + 4 }, (_, i) => addDays(utc, i - 2));
}

/**
 * What to act on across the organization, every property looked at: its first `ATTENTION_LIMIT`
 * items, and how many lie past them. Only the properties that may give one of those items or a
 * lapse are read whole (withdrawals and rejections are found and counted in SQL by the model's own
 * rules, db/host-attention.ts); the owners' connections are counted in SQL, the first few read.
 */
async function organizationAttention(
  deps: Deps,
  organizationId: string,
  now: Date,
): Promise<Pick<DashboardOverview, 'attention' | 'attentionMore'>> {
  const [candidates, owners] = await Promise.all([
    attentionCandidates(deps.orm.em.fork(), organizationId, lapseWindow(now), ATTENTION_LIMIT),
    ownersNotConnected(deps.orm.em.fork(), organizationId, ATTENTION_LIMIT),
  ]);
  const properties = propertiesOf(
    candidates.properties,
    await channelsOfProperties(
      deps.orm.em.fork(),
      candidates.properties.map((candidate) => candidate.id),
    ),
    now,
  );
  const notConnected = owners.owners.map((o): AttentionItem => ({
    kind: 'not_connected',
    owner: o.ownerRef,
    ownerName: o.ownerName,
    channel: o.channel,
    properties: o.properties,
  }));
  return limitAttention(
    [
      ...propertyItems(properties, new Map(candidates.properties.map((candidate) => [candidate.ref, candidate]))),
      ...notConnected,
    ],
    { withdrawn: candidates.withdrawn, rejected: candidates.rejected, notConnected: owners.total },
  );
}

/** The page of the overview the query asks for (past the last is the last), the filter and the channels it can name. */
async function overviewPage(
  deps: Deps,
  organizationId: string,
  query: OverviewQuery,
  now: Date,
): Promise<Omit<DashboardOverview, 'attention' | 'attentionMore'>> {
  const asked = query.filter ?? { channel: null, status: null };
  const wanted = Math.max(1, Math.floor(query.page ?? 1));
  const read = (filter: OverviewFilter, page: number) =>
    organizationPropertiesPage(deps.orm.em.fork(), organizationId, filter, {
      limit: OVERVIEW_PAGE_SIZE,
      offset: (page - 1) * OVERVIEW_PAGE_SIZE,
    });
  // The page is read under the filter asked for while the channels are read; a channel the
  // organization has nothing on is no filter, and only then is the page read again.
  const [channels, optimistic] = await Promise.all([
    organizationChannels(deps.orm.em.fork(), organizationId),
    read(asked, wanted),
  ]);
  const filter = {
    channel: asked.channel !== null && channels.includes(asked.channel) ? asked.channel : null,
    status: asked.status,
    withdrawn: asked.withdrawn === true,
  };
  const first = filter.channel === asked.channel ? optimistic : await read(filter, wanted);
  const pages = Math.max(1, Math.ceil(first.total / OVERVIEW_PAGE_SIZE));
  const page = Math.min(wanted, pages);
  const { properties: records, total } = page === wanted ? first : await read(filter, page);
  const properties = propertiesOf(
    records,
    await channelsOfProperties(
      deps.orm.em.fork(),
      records.map((record) => record.id),
    ),
    now,
  );
  return { properties, total, page, pages, pageSize: OVERVIEW_PAGE_SIZE, channels, filter };
}

export async function listingsOverview(
  deps: Deps,
  organizationId: string,
  query: OverviewQuery = {},
): Promise<DashboardOverview> {
  const now = deps.clock.now();
  const [listed, attention] = await Promise.all([
    overviewPage(deps, organizationId, query, now),
    organizationAttention(deps, organizationId, now),
  ]);
  return { ...listed, ...attention };
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
export async function propertyDashboard(
  deps: Deps,
  organizationId: string,
  ref: string,
): Promise<PropertyDashboard | null> {
  const em = deps.orm.em.fork();
  const record = await organizationProperty(em, organizationId, ref);
  if (!record) return null;
  const property = dashboardProperty(record, await channelsOfProperties(em, [record.id]), deps.clock.now());
  const from = addDays(property.today, -(CHART_DAYS - 1));
  const to = addDays(property.today, 1);
  const [history, stats] = await Promise.all([
    propertyListings(deps, ref),
    statsOfProperty(em.fork(), record.id, from, to),
  ]);
  const dates = Array.from({ length: CHART_DAYS }, (_, i) => addDays(from, i));
  const names = [...new Set([...property.channels.map((c) => c.name), ...stats.map((s) => s.channel)])].sort();
  const series = names.map((channel) => {
    const byDate = new Map(stats.filter((s) => s.channel === channel).map((s) => [s.day, s]));
    return {
      channel,
      days: dates.map((date) => ({
        date,
        views: byDate.get(date)?.views ?? null,
        clicks_to_booking: byDate.get(date)?.clicksToBooking ?? null,
      })),
    };
  });
  return {
    property,
    listings: new Map(history.data.map((listing) => [listing.channel, listing])),
    chart: { from, to, series },
    attention: attentionItems([property], new Map([[record.ref, record]])),
  };
}
