import { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { loadConfig } from './config.ts';
import { ormOptions } from '../db/orm.ts';
import { migrate } from '../db/migrate.ts';
import { systemClock } from '../domain/clock.ts';
import { createLogger } from '../infra/logger.ts';
import { connectTemporalClient } from '../infra/temporal.ts';
import { serviceDeps } from '../services/deps.ts';
import { loadSecrets } from '../infra/secrets.ts';
import { readRuntimeFile } from './servers.ts';
import type { AdminContext } from '../admin/context.ts';

/**
 * The CLI works on the configured servers, or on the embedded ones of a running `npm start`
 * (found through DATA_DIR/runtime.json). Temporal is connected only by commands that need it.
 */
export async function openAdminContext(): Promise<{ ctx: AdminContext; close: () => Promise<void> }> {
  const config = loadConfig();
  const runtime = config.databaseUrl && config.temporal.address ? undefined : await readRuntimeFile(config.dataDir);
  const databaseUrl = config.databaseUrl ?? runtime?.databaseUrl;
  const temporalAddress = config.temporal.address ?? runtime?.temporalAddress;
  if (!databaseUrl) throw new Error('no database: start the service with `npm start` first, or set DATABASE_URL');
  const orm = await MikroORM.init(ormOptions(databaseUrl));
  await migrate(orm, databaseUrl);
  let temporal: { client: Client; close: () => Promise<void> } | undefined;
  const ctx: AdminContext = serviceDeps({
    orm,
    config,
    clock: systemClock,
    log: createLogger(config.logLevel, { process: 'admin' }),
    secrets: await loadSecrets(config),
    temporal: async () => {
      if (!temporalAddress) throw new Error('no Temporal: start the service with `npm start` first, or set TEMPORAL_ADDRESS');
      temporal ??= await connectTemporalClient({ ...config.temporal, address: temporalAddress }, config.temporal.namespace);
      return temporal.client;
    },
  });
  return {
    ctx,
    close: async () => {
      await temporal?.close();
      await orm.close();
    },
  };
}
