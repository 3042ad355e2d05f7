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

/** The properties under these references, locked in id order for the rest of the transaction. */
export async function lockPropertiesByRef(tx: EntityManager, refs: readonly string[]): Promise<BatchProperty[]> {
  return tx.execute<BatchProperty[]>(
    `select p.id, p.ref, p.content, l.content->>'timezone' as timezone from property p join location l on l.id = p.location_id
      where p.ref = any(?::text[]) order by p.id for update of p`,
    [pgArray(refs)],
  );
}

/** Zones that have properties with availability: one roll each. */
export async function zonesInUse(em: EntityManager): Promise<string[]> {
  const rows = await em.execute<{ timezone: string }[]>('select distinct timezone from ari_property order by timezone');
  return rows.map((row) => row.timezone);
}
