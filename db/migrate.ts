import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AMENITIES } from '../domain/catalogue/amenities.ts';
import { applyAmenityRelease } from './amenities.ts';

// Any constant works; it only has to be the same in every process of the service.
const MIGRATION_LOCK = 7_140_221;

/**
 * Applies pending migrations under a session advisory lock, so an API and a worker starting
 * together against one database never run the same migration twice; then this release's amenity
 * catalogue, as a migration of data (new amenities served, changed and retired ones announced).
 */
export async function migrate(orm: MikroORM, clientUrl: string): Promise<void> {
  const lock = new pg.Client({ connectionString: clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
    await applyAmenityRelease(orm.em.fork(), AMENITIES, new Date());
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}
