import type { EntityManager } from '@mikro-orm/postgresql';
import { dashboardPropertiesOf, PROPERTY_COLUMNS, type DashboardPropertyRecord } from './host-dashboard.ts';
import { queryRows } from './sql.ts';

/**
 * What the overview's "to act on" list reads across a whole organization. The list shows its
 * first items only (`ATTENTION_LIMIT`, services/host-dashboard-model.ts): only the properties
 * that can give one of them are read whole, found through the indexes of the migrations
 * HostOverviewIndexes (db/routines.ts lists a property's dates) and ListingReportRejected; the
 * items past them and the owners' connections are counted in SQL. db/host-dashboard.ts holds the
 * rows the pages show.
 */

/** The organization's properties: at its locations and of its owners (a row joining two organizations shows in neither). */
const OF_ORGANIZATION = `from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id`;
const IN_ORGANIZATION = `l.organization_id = ? and o.organization_id = l.organization_id`;

/** What `attentionCandidates` finds: the properties to read whole, and how many items of each kind there are in all. */
export interface AttentionCandidates {
  /** The properties that may give one of the first `limit` withdrawals or rejections, or a lapse; by reference. */
  properties: DashboardPropertyRecord[];
  /** How many listings of the organization are withdrawn from a channel they are distributed to. */
  withdrawn: number;
  /** Per channel, by name, how many listings distributed to it and shown by it it last reported `rejected`. */
  rejected: Record<string, number>;
}

/** `attentionCandidates`' statement, its `?` numbered for a prepared statement. */
const ATTENTION_CANDIDATES_SQL = numbered(
  `with withdrawn as (
       select p.id, p.ref, c.name as channel
         from (select cr.internal_id, cr.channel_id from channel_resource cr
                where cr.kind = 'property' and cr.status = 'withdrawn' offset 0) cr
         join property p on p.id = cr.internal_id join location l on l.id = p.location_id
         join owner o on o.id = p.owner_id join channel c on c.id = cr.channel_id
        where ${IN_ORGANIZATION}
          and exists (select 1 from distribution d where d.property_id = cr.internal_id and d.channel_id = cr.channel_id)
     ), rejected as (
       select p.id, p.ref, c.name as channel
         from (select r.property_id, r.channel_id from listing_report r where r.status = 'rejected' offset 0) r
         join property p on p.id = r.property_id join location l on l.id = p.location_id
         join owner o on o.id = p.owner_id join channel c on c.id = r.channel_id
        where ${IN_ORGANIZATION}
          and exists (select 1 from distribution d where d.property_id = r.property_id and d.channel_id = r.channel_id)
          and exists (select 1 from channel_resource cr where cr.kind = 'property' and cr.internal_id = r.property_id
                         and cr.channel_id = r.channel_id and cr.status in ('active', 'inactive'))
     ), candidate as (
       (select id from withdrawn order by ref, channel limit ?)
       union
       (select id from rejected order by ref, channel limit ?)
       union
       select id from property where legal_valid_until_dates(content->'legal') && ?::text[]
     )
     select ${PROPERTY_COLUMNS},
            (select count(*) from withdrawn) as withdrawn,
            (select json_object_agg(channel, n) from (select channel, count(*) as n from rejected group by channel) g) as rejected
       ${OF_ORGANIZATION} join candidate x on x.id = p.id
      where ${IN_ORGANIZATION} order by p.ref`,
);

/**
 * The organization's properties, by reference, that may be on the list for a withdrawal, a
 * rejection or a lapse: those with one of the first `limit` withdrawals (in the view of a
 * channel they are distributed to) and the first `limit` rejections (a channel they are
 * distributed to and shown by last reported `rejected`, migration ListingReportRejected), both in
 * the list's order (property reference, then channel name), and those with a certificate or an
 * identifier valid through one of `dates`; with how many withdrawals and rejections there are in
 * all. The conditions on a withdrawal and a rejection are the rules of
 * services/host-dashboard-model.ts (`propertyItems`), so the list's first `limit` items are
 * among these properties and the counts are its counts; only the properties are read whole, the
 * rest of the pairs are counted. The caller applies the rules to these few rows.
 */
export async function attentionCandidates(
  em: EntityManager,
  organizationId: string,
  dates: readonly string[],
  limit: number,
): Promise<AttentionCandidates> {
  // Offset 0 keeps each pair's search on its partial index (a withdrawn view, a rejected report),
  // the organization and the rules then looked up per pair, rather than a plan that reads every
  // listing some channel shows, as the planner may choose on a database without statistics.
  // Prepared once per connection (`queryRows`): its plan, of several scans and joins, cost
  // about ten times its execution on a small organization's overview.
  const rows = await queryRows<{ withdrawn: string; rejected: Record<string, number> | null }>(
    em,
    ATTENTION_CANDIDATES_SQL,
    [organizationId, organizationId, limit, limit, `{${dates.join(',')}}`, organizationId],
  );
  // A withdrawal or a rejection is a candidate's: with none, there is none to count.
  return {
    properties: dashboardPropertiesOf(rows),
    withdrawn: Number(rows[0]?.withdrawn ?? 0),
    rejected: rows[0]?.rejected ?? {},
  };
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
 * name each pair, then by channel: the first `limit` pairs, and how many there are in all.
 */
export async function ownersNotConnected(
  em: EntityManager,
  organizationId: string,
  limit: number,
): Promise<{ owners: OwnerNotConnected[]; total: number }> {
  const rows = await em.execute<
    { owner_ref: string; owner_name: string; channel: string; properties: string; total: string }[]
  >(
    `with shown as (
       select p.owner_id, cr.channel_id, count(*) as properties, min(p.ref) as first_ref
         ${OF_ORGANIZATION}
         join channel_resource cr on cr.kind = 'property' and cr.internal_id = p.id
        where ${IN_ORGANIZATION} and cr.status in ('active', 'inactive')
          and (exists (select 1 from distribution d where d.property_id = p.id and d.channel_id = cr.channel_id)
               or exists (select 1 from listing_report r where r.channel_id = cr.channel_id and r.property_id = p.id))
        group by p.owner_id, cr.channel_id
     )
     select o.ref as owner_ref, o.content->>'display_name' as owner_name, c.name as channel, s.properties,
            count(*) over () as total
       from shown s join owner o on o.id = s.owner_id join channel c on c.id = s.channel_id
       left join channel_resource ocr on ocr.channel_id = s.channel_id and ocr.kind = 'owner' and ocr.internal_id = s.owner_id
      where (ocr.body->>'connected_at') is null
      order by s.first_ref, c.name
      limit ?`,
    [organizationId, limit],
  );
  return {
    owners: rows.map((row) => ({
      ownerRef: row.owner_ref,
      ownerName: row.owner_name,
      channel: row.channel,
      properties: Number(row.properties),
    })),
    // No pair read is none at all: the count is of every pair, before the limit.
    total: Number(rows[0]?.total ?? 0),
  };
}

/** `text` with its `?` placeholders numbered `$1`, `$2`, … in order, as a prepared statement takes them. */
function numbered(text: string): string {
  let n = 0;
  return text.replaceAll('?', () => `$${(n += 1)}`);
}
