import type { EntityManager } from '@mikro-orm/postgresql';
import type { PropertyInput } from '../domain/catalogue/source.ts';
import { pgArray } from './sql.ts';

// Which zone each property's nights follow, and the properties a batch of platform updates locks.

/** The nights of a location's properties follow its zone. */
export async function followLocationZone(tx: EntityManager, locationId: string, timezone: string): Promise<void> {
  await tx.execute(
    'update ari_property set timezone = ? where property_id in (select id from property where location_id = ?)',
    [timezone, locationId],
  );
}

/** A property a batch of updates names, with the zone of its location. */
export interface BatchProperty {
  id: string;
  ref: string;
  content: PropertyInput;
  timezone: string;
}

/** The properties under these references, read without a lock (the rules of a refused batch). */
export async function propertiesByRef(em: EntityManager, refs: readonly string[]): Promise<BatchProperty[]> {
  return em.execute<BatchProperty[]>(
    `select p.id, p.ref, p.content, l.content->>'timezone' as timezone from property p join location l on l.id = p.location_id
      where p.ref = any(?::text[]) order by p.id`,
    [pgArray(refs)],
  );
}

/** The properties under these references, locked in id order for the rest of the transaction. */
export async function lockPropertiesByRef(tx: EntityManager, refs: readonly string[]): Promise<BatchProperty[]> {
  return tx.execute<BatchProperty[]>(
    `select p.id, p.ref, p.content, l.content->>'timezone' as timezone from property p join location l on l.id = p.location_id
      where p.ref = any(?::text[]) order by p.id for update of p`,
    [pgArray(refs)],
  );
}

/**
 * Zones that have properties with availability: one roll each, and the dates a listing's window
 * is held to. One probe of the zone index per zone, each finding the next zone after the last
 * (a `distinct` would read the whole index, a row per property).
 */
export async function zonesInUse(em: EntityManager): Promise<string[]> {
  const rows = await em.execute<{ timezone: string }[]>(
    `with recursive zones(timezone) as (
       (select timezone from ari_property order by timezone limit 1)
       union all
       select (select a.timezone from ari_property a where a.timezone > zones.timezone order by a.timezone limit 1)
         from zones where zones.timezone is not null
     )
     select timezone from zones where timezone is not null`,
  );
  return rows.map((row) => row.timezone);
}
