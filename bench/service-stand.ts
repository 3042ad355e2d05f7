/**
 * The service's parts in a bench's own process, as the benches start them: a scratch database of
 * the PostgreSQL at DATABASE_URL (default 127.0.0.1:5432) or a database of the bench's choosing,
 * the Temporal dev server (or one already running), the configuration with the bench's fixed
 * secrets, and the services' dependencies; then, when a bench serves the app itself, the app over
 * TLS on a port of the system's choosing. `close` stops what was started, newest first.
 */
import os from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { createApp } from '../api/app.ts';
import { listen } from '../api/server.ts';
import { loadConfig, type ServiceConfig } from '../app/config.ts';
import { openDatabase } from '../db/orm.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { systemClock, type Clock } from '../domain/clock.ts';
import { startDevServer, type RunningTemporal } from '../infra/embedded-temporal.ts';
import { createLogger } from '../infra/logger.ts';
import { loadSecrets } from '../infra/secrets.ts';
import { connectTemporalClient } from '../infra/temporal.ts';
import { loadTlsMaterial, type TlsMaterial } from '../infra/tls.ts';
import { serviceDeps, type ServiceDeps } from '../services/deps.ts';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

/** The server secret every bench runs with: cursors and sealed values a bench makes open in the service. */
export const BENCH_SERVER_SECRET = 'bench-server-secret-0123456789abcdefghij';
/** The origin the benches' apps announce. */
export const BENCH_ORIGIN = 'https://bench.test';
/** The PostgreSQL server the benches make their databases on. */
export const benchServerUrl = () => process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchStand {
  /** The database's URL. */
  url: string;
  temporal: { address: string; client: Client };
  orm: MikroORM;
  config: ServiceConfig;
  deps: ServiceDeps;
  /** Stops what the stand started, newest first; the scratch database is dropped. */
  close: () => Promise<void>;
}

export interface StandOptions {
  /** A scratch database named after this prefix, dropped on close (default `svc_bench`)... */
  scratchPrefix?: string;
  /** ...or this database, kept. */
  databaseUrl?: string;
  /** A Temporal frontend already running; unset, a dev server of the stand's own. */
  temporalAddress?: string;
  /** Variables over the bench's defaults (LOG_LEVEL silent, DATA_DIR, SERVER_SECRET) and this process's. */
  env?: Record<string, string>;
  /** Whether the environment starts from this process's (default) or from the bench's defaults alone. */
  inheritEnv?: boolean;
  clock?: Clock;
}

/** The service's dependencies on a scratch (or given) database and a dev server (or given one). */
export async function standUp(options: StandOptions = {}): Promise<BenchStand> {
  const stops: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    let url = options.databaseUrl;
    if (!url) {
      const scratch = await createScratchDatabase(benchServerUrl(), options.scratchPrefix ?? 'svc_bench');
      stops.push(scratch.drop);
      url = scratch.url;
    }
    let address = options.temporalAddress;
    if (!address) {
      const temporal: RunningTemporal = await startDevServer({ searchAttributes: SEARCH_ATTRIBUTES });
      stops.push(temporal.stop);
      address = temporal.address;
    }
    const client = await connectTemporalClient(address, 'default');
    stops.push(() => client.close());
    const orm = await openDatabase(url);
    stops.push(() => orm.close(true));
    const config = loadConfig({
      ...(options.inheritEnv === false ? {} : process.env),
      LOG_LEVEL: 'silent',
      DATA_DIR: path.join(os.tmpdir(), 'svc-bench'),
      SERVER_SECRET: BENCH_SERVER_SECRET,
      ...options.env,
    });
    const deps = serviceDeps({
      orm,
      temporal: client.client,
      config,
      clock: options.clock ?? systemClock,
      log: createLogger('silent'),
      secrets: await loadSecrets(config),
    });
    return { url, temporal: { address, client: client.client }, orm, config, deps, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The app of `stand` served over TLS on loopback, on a port of the system's choosing. */
export async function serveOverTls(
  stand: Pick<BenchStand, 'config' | 'deps'>,
  app = createApp(stand.deps, { publicOrigin: BENCH_ORIGIN }),
): Promise<{ url: string; tls: TlsMaterial; close: () => Promise<void> }> {
  const tls = await loadTlsMaterial({ dataDir: stand.config.dataDir });
  const server = await listen(app, { host: '127.0.0.1', port: 0, plainPort: null, tls, publicOrigin: BENCH_ORIGIN });
  return { url: server.url, tls, close: () => server.close() };
}
