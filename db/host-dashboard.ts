import type { EntityManager } from '@mikro-orm/postgresql';
import type { Legal } from '../domain/catalogue/legal.ts';
import type { ListingReport } from './listings.ts';

/** What the host's listings dashboard reads of one organization (db/listings.ts holds the reports' own statements). */

/** A property of the organization with its owner and what the legal rules read of its location. */
export interface DashboardPropertyRecord {
  id: string;
  ref: string;
  name: Record<string, string>;
  ownerRef: string;
  ownerName: string;
  timezone: string;
  country: string;
  legal: Legal;
}

/** The columns of `PROPERTY_COLUMNS` as raw queries return them. */
interface DashboardPropertyRow {
  id: string;
  ref: string;
  name: Record<string, string>;
  owner_ref: string;
  owner_name: string;
  timezone: string;
  country: string;
  legal: Legal;
}

/** The records of rows a statement selected with `PROPERTY_COLUMNS` (on `p`, `o`, `l`). */
export function dashboardPropertiesOf(rows: readonly object[]): DashboardPropertyRecord[] {
  return (rows as readonly DashboardPropertyRow[]).map((row) => ({
    id: row.id,
    ref: row.ref,
    name: row.name,
    ownerRef: row.owner_ref,
    ownerName: row.owner_name,
    timezone: row.timezone,
    country: row.country,
    legal: row.legal,
  }));
}

export const PROPERTY_COLUMNS = `p.id, p.ref, p.content->'name' as name, o.ref as owner_ref, o.content->>'display_name' as owner_name,
        l.content->>'timezone' as timezone, l.content->'address'->>'country' as country, p.content->'legal' as legal`;

/**
 * What the host narrows the overview to: properties on one channel, and/or with a channel whose
 * last report is `status` (`none`: no report yet), and/or withdrawn from a channel they are
 * distributed to (on `channel`, when it names one): the withdrawals of "to act on".
 */
export interface OverviewFilter {
  channel: string | null;
  status: string | null;
  withdrawn?: boolean;
}

/** The condition and parameters of a filter, on `p` (property). */
function filterCondition(filter: OverviewFilter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  // The pairs the overview shows: channels the property is distributed to or was reported on by.
  const pairs = `(select d.channel_id from distribution d where d.property_id = p.id union select r.channel_id from listing_report r where r.property_id = p.id)`;
  const onChannel = filter.channel === null ? '' : ' and c.name = ?';
  if (filter.status === 'none') {
    parts.push(`exists (select 1 from ${pairs} x join channel c on c.id = x.channel_id
      where not exists (select 1 from listing_report r where r.property_id = p.id and r.channel_id = x.channel_id)${onChannel})`);
    if (filter.channel !== null) params.push(filter.channel);
  } else if (filter.status !== null) {
    parts.push(
      `exists (select 1 from listing_report r join channel c on c.id = r.channel_id where r.property_id = p.id and r.status = ?${onChannel})`,
    );
    params.push(filter.status);
    if (filter.channel !== null) params.push(filter.channel);
  } else if (filter.channel !== null && !filter.withdrawn) {
    // (A withdrawal from the channel, below, is a pair of the channel's already.)
    parts.push(`exists (select 1 from ${pairs} x join channel c on c.id = x.channel_id where c.name = ?)`);
    params.push(filter.channel);
  }
  if (filter.withdrawn) {
    // The rule of a withdrawal in "to act on" (db/host-attention.ts), on the partial index of withdrawn views.
    parts.push(`exists (select 1 from channel_resource cr join channel c on c.id = cr.channel_id
      where cr.kind = 'property' and cr.status = 'withdrawn' and cr.internal_id = p.id
        and exists (select 1 from distribution d where d.property_id = p.id and d.channel_id = cr.channel_id)${onChannel})`);
    if (filter.channel !== null) params.push(filter.channel);
  }
  return { sql: parts.map((part) => ` and ${part}`).join(''), params };
}

/**
 * One page of the organization's properties that pass the filter, by reference, and how many pass
 * in all (a row joining two organizations shows in neither). The page is chosen and counted on the
 * references alone; only its rows' content is read.
 */
export async function organizationPropertiesPage(
  em: EntityManager,
  organizationId: string,
  filter: OverviewFilter,
  page: { limit: number; offset: number },
): Promise<{ properties: DashboardPropertyRecord[]; total: number }> {
  const condition = filterCondition(filter);
  const rows = await em.execute<(DashboardPropertyRow & { total: string })[]>(
    `with page as (
       select p.id, count(*) over () as total from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id
        where l.organization_id = ? and o.organization_id = l.organization_id${condition.sql} order by p.ref limit ? offset ?
     )
     select ${PROPERTY_COLUMNS}, page.total from page join property p on p.id = page.id join location l on l.id = p.location_id join owner o on o.id = p.owner_id
      order by p.ref`,
    [organizationId, ...condition.params, page.limit, page.offset],
  );
  if (rows.length > 0 || page.offset === 0)
    return { properties: dashboardPropertiesOf(rows), total: Number(rows[0]?.total ?? 0) };
  // Past the end: the count alone, so the caller can go to the last page.
  const [counted] = await em.execute<{ total: string }[]>(
    `select count(*) as total from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id
      where l.organization_id = ? and o.organization_id = l.organization_id${condition.sql}`,
    [organizationId, ...condition.params],
  );
  return { properties: [], total: Number(counted?.total ?? 0) };
}

/** The channels the organization's properties are distributed to or were reported on by, by name. */
export async function organizationChannels(em: EntityManager, organizationId: string): Promise<string[]> {
  const rows = await em.execute<{ name: string }[]>(
    `select c.name from channel c
      where c.id in (select d.channel_id from distribution d join property p on p.id = d.property_id join location l on l.id = p.location_id join owner o on o.id = p.owner_id
                      where l.organization_id = ? and o.organization_id = l.organization_id
                     union all
                     select r.channel_id from listing_report r join property p on p.id = r.property_id join location l on l.id = p.location_id join owner o on o.id = p.owner_id
                      where l.organization_id = ? and o.organization_id = l.organization_id)
      order by c.name`,
    [organizationId, organizationId],
  );
  return rows.map((row) => row.name);
}

/** One property of the organization under its reference; null for another organization's or an unknown one. */
export async function organizationProperty(
  em: EntityManager,
  organizationId: string,
  ref: string,
): Promise<DashboardPropertyRecord | null> {
  const rows = await em.execute<DashboardPropertyRow[]>(
    `select ${PROPERTY_COLUMNS} from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id
      where l.organization_id = ? and o.organization_id = l.organization_id and p.ref = ?`,
    [organizationId, ref],
  );
  return dashboardPropertiesOf(rows)[0] ?? null;
}

/** A channel a property is distributed to or was reported on by, with its view, the owner's connection and the last report. */
export interface DashboardChannelRecord {
  propertyId: string;
  channel: string;
  /** The host distributes the property to the channel now. */
  distributed: boolean;
  /** The property's status in the channel's view; null when it was never shown. */
  viewStatus: string | null;
  /**
   * The owner's connection on the channel: `connected_at` as projected into the channel's owner
   * record, the text of its stored JSON (an instant as the contract writes it), or null.
   */
  ownerConnectedAt: string | null;
  /** The channel's current report; null when it sent none. */
  report: ListingReport | null;
}

/** A row of `channelsOfProperties` as raw queries return it (instants as text, report columns null without a report). */
interface DashboardChannelRow {
  property_id: string;
  channel: string;
  distributed: boolean;
  view_status: string | null;
  connected_at: string | null;
  status: string | null;
  public_url: string | null;
  promoted: boolean | null;
  promoted_until: string | null;
  rejection_reason: string | null;
  rejection_text: string | null;
  updated_at: string | null;
  received_at: string | null;
}

function reportOf(row: DashboardChannelRow): ListingReport | null {
  if (row.status === null || row.updated_at === null || row.received_at === null) return null;
  return {
    status: row.status,
    publicUrl: row.public_url,
    promoted: row.promoted ?? false,
    promotedUntil: row.promoted_until === null ? null : new Date(row.promoted_until),
    rejectionReason: row.rejection_reason,
    rejectionText: row.rejection_text,
    updatedAt: new Date(row.updated_at),
    receivedAt: new Date(row.received_at),
  };
}

/**
 * Each channel a property is distributed to or was reported on by, with its view, the owner's
 * connection and the current report. Each property's channels are looked up by the property and
 * each of its rows by its key (the lateral reads and the subqueries), so the cost follows the
 * properties asked for, not the size of the tables.
 */
export async function channelsOfProperties(
  em: EntityManager,
  propertyIds: readonly string[],
): Promise<DashboardChannelRecord[]> {
  if (propertyIds.length === 0) return [];
  const rows = await em.execute<DashboardChannelRow[]>(
    `select p.id as property_id, c.name as channel, x.distributed,
            (select cr.status from channel_resource cr where cr.channel_id = x.channel_id and cr.kind = 'property' and cr.internal_id = p.id) as view_status,
            (select ocr.body->>'connected_at' from channel_resource ocr where ocr.channel_id = x.channel_id and ocr.kind = 'owner' and ocr.internal_id = p.owner_id) as connected_at,
            r.status, r.public_url, r.promoted, r.promoted_until, r.rejection_reason, r.rejection_text, r.updated_at, r.received_at
       from property p
       cross join lateral (
         select s.channel_id, bool_or(s.distributed) as distributed
           from (select d.channel_id, true as distributed from distribution d where d.property_id = p.id
                 union all select lr.channel_id, false from listing_report lr where lr.property_id = p.id) s
          group by s.channel_id
       ) x
       join channel c on c.id = x.channel_id
       -- offset 0 keeps this a lookup per pair rather than a join the planner may answer by reading the whole table
       left join lateral (select * from listing_report lr where lr.channel_id = x.channel_id and lr.property_id = p.id offset 0) r on true
      where p.id = any(?::uuid[])
      order by p.id, c.name`,
    [`{${propertyIds.join(',')}}`],
  );
  return rows.map((row) => ({
    propertyId: row.property_id,
    channel: row.channel,
    distributed: row.distributed,
    viewStatus: row.view_status,
    ownerConnectedAt: row.connected_at,
    report: reportOf(row),
  }));
}
