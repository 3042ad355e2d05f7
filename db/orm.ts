import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.ts';
import { migrate } from './migrate.ts';
import { migrationsList } from './migrations/index.ts';
import { routines } from './routines.ts';

/** How long a query waits for a connection: a new one to be established, or one of the pool to be free. */
export const CONNECTION_TIMEOUT_MS = 5_000;

export function ormOptions(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities,
    routines,
    extensions: [Migrator],
    migrations: {
      path: 'db/migrations',
      tableName: 'schema_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
      migrationsList,
    },
    // Timestamps are instants: store timestamptz and read them back as UTC Dates.
    timezone: '+00:00',
    forceUtcTimezone: true,
    debug: false,
    pool: { min: 0, max: 10 },
    // pg waits for ever by default: for a server that takes the connection and never answers (a
    // black-holed address, a stalled fail-over), and for a free connection of the pool. Both fail
    // after this long, as a lost connection (the API answers 503 service_unavailable).
    driverOptions: { connectionTimeoutMillis: CONNECTION_TIMEOUT_MS },
    ...overrides,
  });
}

/** Resolves when the database answers a trivial query (for /health). */
export async function pingDatabase(orm: MikroORM): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}

/** Connects and brings the schema up to date; the schema comes only from migrations. */
export async function openDatabase(clientUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(clientUrl, overrides));
  await migrate(orm, clientUrl);
  return orm;
}
