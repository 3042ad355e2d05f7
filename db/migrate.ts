import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AMENITIES } from '../domain/catalogue/amenities.ts';
import { applyAmenityRelease } from './amenities.ts';
import { convertToPartitions } from './partition-job.ts';
import { PARTITIONED_TABLES } from './partitions.ts';

// Any constant works; it only has to be the same in every process of the service.
const MIGRATION_LOCK = 7_140_221;

/**
 * Applies pending migrations under a session advisory lock, so an API and a worker starting
 * together against one database never run the same migration twice; then this release's amenity
 * catalogue, as a migration of data (new amenities served, changed and retired ones announced).
 */
export async function migrate(orm: MikroORM, clientUrl: string): Promise<void> {
  const lock = new pg.Client({ connectionString: clientUrl });
  // A server that goes away (a stop while migrating) fails the lock's queries, which say so; the
  // client's own error event must not also end the process unhandled.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
    await partitionEmptyTables(orm);
    await applyAmenityRelease(orm.em.fork(), AMENITIES, new Date());
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}

/**
 * A new installation's log, deliveries and attempts are partitioned at once (db/partitions.ts):
 * they are empty, so it costs nothing. An installation with rows is converted by the housekeeping
 * pass instead, while it serves (db/partition-job.ts): a start never waits for a table's scan.
 */
async function partitionEmptyTables(orm: MikroORM): Promise<void> {
  const em = orm.em.fork();
  for (const spec of PARTITIONED_TABLES) {
    const [{ empty }] = await em.execute<[{ empty: boolean }]>(
      `select not exists (select 1 from ${spec.table}) as empty`,
    );
    if (empty) await convertToPartitions(em, spec, new Date());
  }
}
