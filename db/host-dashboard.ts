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

const PROPERTY_COLUMNS = `p.id, p.ref, p.content->'name' as name, o.ref as owner_ref, o.content->>'display_name' as owner_name,
        l.content->>'timezone' as timezone, l.content->'address'->>'country' as country, p.content->'legal' as legal`;

/** The organization's properties, by reference: at its locations and of its owners (a row joining two organizations shows in neither). */
export async function organizationProperties(em: EntityManager, organizationId: string): Promise<DashboardPropertyRow[]> {
  return em.execute(
    `select ${PROPERTY_COLUMNS} from property p join location l on l.id = p.location_id join owner o on o.id = p.owner_id
      where l.organization_id = ? and o.organization_id = l.organization_id order by p.ref`,
    [organizationId],
  );
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
