/**
 * `npm run migrate`: brings DATABASE_URL's schema up to date (the migrations, then this release's
 * amenity catalogue) and exits; docker-compose.yml runs it as a one-shot job before the API and
 * the workers start. Every API and worker process also migrates at start, under the same advisory
 * lock, which is then a no-op. Logs the migrations it applied.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig } from '../app/config.ts';
import { migrate } from '../db/migrate.ts';
import { ormOptions } from '../db/orm.ts';
import { createLogger } from '../infra/logger.ts';

const config = loadConfig();
const log = createLogger(config.logLevel, { process: 'migrate' });
if (!config.databaseUrl) {
  log.error('migrate needs DATABASE_URL');
  process.exit(2);
}
const orm = await MikroORM.init(ormOptions(config.databaseUrl));
try {
  const pending = (await orm.migrator.getPending()).map((migration) => migration.name);
  await migrate(orm, config.databaseUrl);
  log.info('database migrated', { applied: pending });
} finally {
  await orm.close(true);
}
