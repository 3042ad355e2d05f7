import type { EntityManager } from '@mikro-orm/postgresql';
import type { Legal } from '../domain/catalogue/legal.ts';

/** What the host's listings dashboard reads of one organization (db/listings.ts holds the reports' own statements). */

export interface DashboardPropertyRow {
  id: string;
  ref: string;
  name: Record<string, string>;
  owner_ref: string;
  owner_name: string;
  timezone: string;
  country: string;
  legal: Legal;
}

export const PROPERTY_COLUMNS = `p.id, p.ref, p.content->'name' as name, o.ref as owner_ref, o.content->>'display_name' as owner_name,
        l.content->>'timezone' as timezone, l.content->'address'->>'country' as country, p.content->'legal' as legal`;

/** What the host narrows the overview to: properties on one channel, and/or with a channel whose last report is `status` (`none`: no report yet). */
export interface OverviewFilter {
  channel: string | null;
  status: string | null;
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
    parts.push(`exists (select 1 from listing_report r join channel c on c.id = r.channel_id where r.property_id = p.id and r.status = ?${onChannel})`);
    params.push(filter.status);
    if (filter.channel !== null) params.push(filter.channel);
  } else if (filter.channel !== null) {
    parts.push(`exists (select 1 from ${pairs} x join channel c on c.id = x.channel_id where c.name = ?)`);
    params.push(filter.channel);
  }
  return { sql: parts.map((part) => ` and ${part}`).join(''), params };
}

/** One page of the organization's properties that pass the filter, by reference, and how many pass in all. */
export async function organizationPropertiesPage(
  em: EntityManager, organizationId: string, filter: OverviewFilter, page: { limit: number; offset: number },
): Promise<{ rows: DashboardPropertyRow[]; total: number }> {
  const condition = filterCondition(filter);
  const rows = await em.execute<(DashboardPropertyRow & { total: string })[]>(
    `select ${PROPERTY_COLUMNS}, count(*) over () as total from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id
      where l.organization_id = ?${condition.sql} order by p.ref limit ? offset ?`,
    [organizationId, ...condition.params, page.limit, page.offset],
  );
  if (rows.length > 0 || page.offset === 0) return { rows: rows.map(({ total: _total, ...row }) => row), total: Number(rows[0]?.total ?? 0) };
  // Past the end: the count alone, so the caller can go to the last page.
  const [counted] = await em.execute<{ total: string }[]>(
    `select count(*) as total from property p join location l on l.id = p.location_id where l.organization_id = ?${condition.sql}`,
    [organizationId, ...condition.params],
  );
  return { rows: [], total: Number(counted?.total ?? 0) };
}

/** The channels the organization's properties are distributed to or were reported on by, by name. */
export async function organizationChannels(em: EntityManager, organizationId: string): Promise<string[]> {
  const rows = await em.execute<{ name: string }[]>(
    `select distinct c.name from property p join location l on l.id = p.location_id
       join lateral (select d.channel_id from distribution d where d.property_id = p.id union select r.channel_id from listing_report r where r.property_id = p.id) x on true
       join channel c on c.id = x.channel_id
      where l.organization_id = ? order by c.name`,
    [organizationId],
  );
  return rows.map((row) => row.name);
}

/** One property of the organization under its reference; null for another organization's or an unknown one. */
export async function organizationProperty(em: EntityManager, organizationId: string, ref: string): Promise<DashboardPropertyRow | null> {
  const [row] = await em.execute<DashboardPropertyRow[]>(
    `select ${PROPERTY_COLUMNS} from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id
      where l.organization_id = ? and o.organization_id = l.organization_id and p.ref = ?`,
    [organizationId, ref],
  );
  return row ?? null;
}

export interface DashboardChannelRow {
  property_id: string;
  channel: string;
  /** The host distributes the property to the channel now. */
  distributed: boolean;
  /** The property's status in the channel's view; null when it was never shown. */
  view_status: string | null;
  /** The owner's connection on the channel, as projected into the channel's owner record. */
  connected_at: string | null;
  status: string | null;
  public_url: string | null;
  promoted: boolean | null;
  promoted_until: Date | null;
  rejection_reason: string | null;
  rejection_text: string | null;
  updated_at: Date | null;
  received_at: Date | null;
}

/** Each channel a property is distributed to or was reported on by, with its view, the owner's connection and the current report. */
export async function channelsOfProperties(em: EntityManager, propertyIds: readonly string[]): Promise<DashboardChannelRow[]> {
  if (propertyIds.length === 0) return [];
  return em.execute(
    `with pairs as (
       select property_id, channel_id from distribution where property_id = any(?::uuid[])
       union select property_id, channel_id from listing_report where property_id = any(?::uuid[])
     )
     select x.property_id, c.name as channel, (d.channel_id is not null) as distributed, cr.status as view_status,
            ocr.body->>'connected_at' as connected_at,
            r.status, r.public_url, r.promoted, r.promoted_until, r.rejection_reason, r.rejection_text, r.updated_at, r.received_at
       from pairs x
       join channel c on c.id = x.channel_id
       join property p on p.id = x.property_id
       left join distribution d on d.property_id = x.property_id and d.channel_id = x.channel_id
       left join channel_resource cr on cr.channel_id = x.channel_id and cr.kind = 'property' and cr.internal_id = x.property_id
       left join channel_resource ocr on ocr.channel_id = x.channel_id and ocr.kind = 'owner' and ocr.internal_id = p.owner_id
       left join listing_report r on r.channel_id = x.channel_id and r.property_id = x.property_id
      order by x.property_id, c.name`,
    [`{${propertyIds.join(',')}}`, `{${propertyIds.join(',')}}`],
  );
}
