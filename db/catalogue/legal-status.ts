import type { EntityManager } from '@mikro-orm/postgresql';
import type { Legal } from '../../domain/catalogue/legal.ts';

/** What the legal rules of one property read: its legal data, its location's country and zone. */
export interface PropertyLegalSource {
  id: string;
  ref: string;
  legal: Legal;
  country: string;
  timezone: string;
}

export async function propertyLegalSource(
  em: EntityManager,
  where: { id: string } | { ref: string },
): Promise<PropertyLegalSource | null> {
  const [column, value] = 'id' in where ? ['p.id', where.id] : ['p.ref', where.ref];
  const [row] = await em.execute<PropertyLegalSource[]>(
    `select p.id, p.ref, p.content->'legal' as legal, l.content->'address'->>'country' as country, l.content->>'timezone' as timezone
       from property p join location l on l.id = p.location_id where ${column} = ?`,
    [value],
  );
  return row ?? null;
}

/** Names of the channels that are shown the property now (not withdrawn or deleted), in name order. */
export async function channelsShowingProperty(em: EntityManager, propertyId: string): Promise<string[]> {
  const rows = await em.execute<{ name: string }[]>(
    `select c.name from channel_resource r join channel c on c.id = r.channel_id
      where r.kind = 'property' and r.internal_id = ? and r.status in ('active', 'inactive') order by c.name`,
    [propertyId],
  );
  return rows.map((row) => row.name);
}

/** Ids of the properties at a location, whose legal dates fall at its zone's midnights. */
export async function propertyIdsAtLocation(em: EntityManager, locationId: string): Promise<string[]> {
  return (
    await em.execute<{ id: string }[]>('select id from property where location_id = ? order by id', [locationId])
  ).map((row) => row.id);
}

/**
 * The next `limit` properties after `after` by id (null: from the first), each with whether it
 * carries an end date on or after `since` (a date; zones differ by at most a day either side, so
 * the caller passes the day before its own): those whose certificate-expiry workflow may have
 * something ahead. Read on the primary key, `limit` rows whatever the catalogue holds; the legal
 * data is filtered here rather than by an index, as nearly every property of the countries that
 * date their identifiers carries a date.
 */
export async function propertiesAfter(
  em: EntityManager,
  after: string | null,
  limit: number,
  since: string,
): Promise<{ id: string; ref: string; dated: boolean }[]> {
  return em.execute<{ id: string; ref: string; dated: boolean }[]>(
    `select id, ref,
            coalesce(content->'legal'->'classification'->>'valid_until' >= ?, false)
            or exists (select 1 from jsonb_array_elements(content->'legal'->'identifiers') i where i->>'valid_until' >= ?) as dated
       from property where id > ?::uuid order by id limit ?`,
    [since, since, after ?? '00000000-0000-0000-0000-000000000000', limit],
  );
}
