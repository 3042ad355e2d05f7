import type { EntityManager } from '@mikro-orm/postgresql';
import { dashboardPropertiesOf, PROPERTY_COLUMNS, type DashboardPropertyRecord } from './host-dashboard.ts';

/**
 * What the overview's "to act on" list reads across a whole organization. Only the properties
 * that can give an item are read whole, found through the indexes of the migrations
 * HostOverviewIndexes (db/routines.ts lists a property's dates) and ListingReportRejected; the
 * owners' connections are counted in SQL. db/host-dashboard.ts holds the rows the pages show.
 */

/** The organization's properties: at its locations and of its owners (a row joining two organizations shows in neither). */
const OF_ORGANIZATION = `from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id`;
const IN_ORGANIZATION = `l.organization_id = ? and o.organization_id = l.organization_id`;

/**
 * The organization's properties, by reference, that may be on the list for a withdrawal, a
 * rejection or a lapse: those withdrawn in the view of a channel they are distributed to, those
 * a channel they are distributed to last reported `rejected` (migration ListingReportRejected),
 * and those with a certificate or an identifier valid through one of `dates`. The caller
 * applies the rules to these few rows.
 */
export async function attentionCandidates(
  em: EntityManager,
  organizationId: string,
  dates: readonly string[],
): Promise<DashboardPropertyRecord[]> {
  const rows = await em.execute(
    `with candidate as (
       select cr.internal_id as id from channel_resource cr
        where cr.kind = 'property' and cr.status = 'withdrawn'
          and exists (select 1 from distribution d where d.property_id = cr.internal_id and d.channel_id = cr.channel_id)
       union
       select r.property_id from listing_report r
        where r.status = 'rejected'
          and exists (select 1 from distribution d where d.property_id = r.property_id and d.channel_id = r.channel_id)
       union
       select id from property where legal_valid_until_dates(content->'legal') && ?::text[]
     )
     select ${PROPERTY_COLUMNS} ${OF_ORGANIZATION} join candidate x on x.id = p.id
      where ${IN_ORGANIZATION} order by p.ref`,
    [`{${dates.join(',')}}`, organizationId],
  );
  return dashboardPropertiesOf(rows);
}

/** An owner and a channel that shows some of its properties while the owner is not connected to it. */
export interface OwnerNotConnected {
  ownerRef: string;
  ownerName: string;
  channel: string;
  /** How many of the owner's properties the channel shows. */
  properties: number;
}

/**
 * Per owner and channel, how many of the owner's properties the channel shows (active or
 * inactive in its view, distributed or reported on) while the owner is not connected to it (no
 * `connected_at` in the channel's owner record); in the order the properties' references first
 * name each pair, then by channel.
 */
export async function ownersNotConnected(em: EntityManager, organizationId: string): Promise<OwnerNotConnected[]> {
  const rows = await em.execute<{ owner_ref: string; owner_name: string; channel: string; properties: string }[]>(
    `with shown as (
       select p.owner_id, cr.channel_id, count(*) as properties, min(p.ref) as first_ref
         ${OF_ORGANIZATION}
         join channel_resource cr on cr.kind = 'property' and cr.internal_id = p.id
        where ${IN_ORGANIZATION} and cr.status in ('active', 'inactive')
          and (exists (select 1 from distribution d where d.property_id = p.id and d.channel_id = cr.channel_id)
               or exists (select 1 from listing_report r where r.channel_id = cr.channel_id and r.property_id = p.id))
        group by p.owner_id, cr.channel_id
     )
     select o.ref as owner_ref, o.content->>'display_name' as owner_name, c.name as channel, s.properties
       from shown s join owner o on o.id = s.owner_id join channel c on c.id = s.channel_id
       left join channel_resource ocr on ocr.channel_id = s.channel_id and ocr.kind = 'owner' and ocr.internal_id = s.owner_id
      where (ocr.body->>'connected_at') is null
      order by s.first_ref, c.name`,
    [organizationId],
  );
  return rows.map((row) => ({
    ownerRef: row.owner_ref,
    ownerName: row.owner_name,
    channel: row.channel,
    properties: Number(row.properties),
  }));
}
