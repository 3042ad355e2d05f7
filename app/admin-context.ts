import path from 'node:path';
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
 * Why the CLI found no server to work on, said so that a second shell can find the running
 * service: a running `npm start` is found only through the DATA_DIR it was started with.
 */
export function noRunningService(
  what: 'database' | 'Temporal',
  variable: 'DATABASE_URL' | 'TEMPORAL_ADDRESS',
  dataDir: string,
): string {
  return (
    `no ${what}: no running \`npm start\` found in DATA_DIR ${path.resolve(dataDir)} (where \`npm start\` keeps its data and runtime.json; default .data in the project directory). ` +
    `If the service runs with another DATA_DIR, give this command the same one (DATA_DIR=/path/to/data npm run admin -- …); otherwise start it with \`npm start\`, or set ${variable}.`
  );
}

/**
 * The CLI works on the configured servers, or on the embedded ones of a running `npm start`
 * (found through DATA_DIR/runtime.json). Temporal is connected only by commands that need it.
 */
export async function openAdminContext(): Promise<{ ctx: AdminContext; close: () => Promise<void> }> {
  const config = loadConfig();
  const runtime = config.databaseUrl && config.temporal.address ? undefined : await readRuntimeFile(config.dataDir);
  const databaseUrl = config.databaseUrl ?? runtime?.databaseUrl;
  const temporalAddress = config.temporal.address ?? runtime?.temporalAddress;
  if (!databaseUrl) throw new Error(noRunningService('database', 'DATABASE_URL', config.dataDir));
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
      if (!temporalAddress) throw new Error(noRunningService('Temporal', 'TEMPORAL_ADDRESS', config.dataDir));
      temporal ??= await connectTemporalClient(
        { ...config.temporal, address: temporalAddress },
        config.temporal.namespace,
      );
      return temporal.client;
    },
  });
  return {
    ctx,
    close: async () => {
      ctx.mailer.close();
      await temporal?.close();
      await orm.close();
    },
  };
}
