import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * An owner, the locations naming it and the properties naming both are of one organization: the
 * host pages scope owners by the owner's organization and listings by the location's, so a record
 * joining two organizations would show each one the other's data. These reads find such joins.
 */

/** The organization of an owner or a location, by id. */
export async function organizationOf(
  em: EntityManager,
  kind: 'owner' | 'location',
  id: string,
): Promise<string | null> {
  const [row] = await em.execute<{ organization_id: string }[]>(`select organization_id from ${kind} where id = ?`, [
    id,
  ]);
  return row?.organization_id ?? null;
}

/** Locations naming the owner, and properties naming it, that are of another organization than `organizationId`. */
export async function countOwnerRecordsElsewhere(
  em: EntityManager,
  ownerId: string,
  organizationId: string,
): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(
    `select (select count(*) from location where owner_id = ? and organization_id <> ?)
          + (select count(*) from property p join location l on l.id = p.location_id where p.owner_id = ? and l.organization_id <> ?) as count`,
    [ownerId, organizationId, ownerId, organizationId],
  );
  return Number(row?.count ?? 0);
}

/** Properties at the location whose owner is of another organization than `organizationId`. */
export async function countPropertiesOfOwnersElsewhere(
  em: EntityManager,
  locationId: string,
  organizationId: string,
): Promise<number> {
  const [row] = await em.execute<{ count: string }[]>(
    `select count(*) as count from property p join owner o on o.id = p.owner_id where p.location_id = ? and o.organization_id <> ?`,
    [locationId, organizationId],
  );
  return Number(row?.count ?? 0);
}
