import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ServiceConfig } from './config.ts';
import { ensureDatabase } from '../db/scratch.ts';
import { startEmbeddedPostgres } from '../infra/embedded-postgres.ts';
import { startDevServer } from '../infra/embedded-temporal.ts';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

export interface ResolvedServices {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  embedded: { postgres: boolean; temporal: boolean };
  stop: () => Promise<void>;
}

/**
 * The configured Postgres and Temporal, or real embedded ones under DATA_DIR when a variable is
 * unset: one command brings the whole service up on a fresh machine. Their ports were refused
 * before, when held (scripts/start.ts, app/start-ports.ts).
 */
export async function resolveServices(config: ServiceConfig, log: (line: string) => void): Promise<ResolvedServices> {
  const stops: (() => Promise<void>)[] = [];
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres(config.dataDir, { port: config.embedded.postgresPort });
    stops.push(pg.stop);
    databaseUrl = await ensureDatabase(pg.serverUrl, `distribution_${config.environment}`);
    log(`embedded PostgreSQL at ${new URL(databaseUrl).host}, data in ${path.resolve(config.dataDir, 'postgres')}`);
  }
  let temporalAddress = config.temporal.address;
  let temporalUiUrl: string | undefined;
  if (!temporalAddress) {
    const temporal = await startDevServer({
      searchAttributes: SEARCH_ATTRIBUTES,
      dataDir: config.dataDir,
      port: config.embedded.temporalPort,
      uiPort: config.embedded.temporalUiPort,
    });
    stops.unshift(temporal.stop);
    temporalAddress = temporal.address;
    temporalUiUrl = temporal.uiUrl;
  }
  return {
    databaseUrl,
    temporalAddress,
    temporalUiUrl,
    embedded: { postgres: !config.databaseUrl, temporal: !config.temporal.address },
    stop: async () => {
      for (const stop of stops) await stop().catch(() => undefined);
    },
  };
}

interface RuntimeFile {
  databaseUrl: string;
  temporalAddress: string;
  apiUrl: string;
  pid: number;
}

const runtimeFile = (dataDir: string) => path.resolve(dataDir, 'runtime.json');

/** Lets the operator CLI find the embedded servers of a running `npm start`. */
export async function writeRuntimeFile(dataDir: string, contents: RuntimeFile): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(runtimeFile(dataDir), JSON.stringify(contents, null, 2), { mode: 0o600 });
}

export async function readRuntimeFile(dataDir: string): Promise<RuntimeFile | undefined> {
  try {
    const contents = JSON.parse(await readFile(runtimeFile(dataDir), 'utf8')) as RuntimeFile;
    process.kill(contents.pid, 0);
    return contents;
  } catch {
    return undefined;
  }
}
