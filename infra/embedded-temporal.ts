import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { SearchAttributeKey, SearchAttributeType } from '@temporalio/common/lib/search-attributes.js';
import { temporalExecutable } from './temporal-binaries.ts';

export const EMBEDDED_TEMPORAL_PORT = Number(process.env.EMBEDDED_TEMPORAL_PORT ?? 7233);
export const EMBEDDED_TEMPORAL_UI_PORT = Number(process.env.EMBEDDED_TEMPORAL_UI_PORT ?? 8233);

/** A port the embedded server cannot take: held by another process, or no port at all. */
export class EmbeddedPortUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedPortUnavailable';
  }
}

/**
 * Refuses a port that another process holds on the loopback address the dev server binds.
 * Without this, the dev server fails to bind while the SDK finds the other process answering on
 * the port and attaches to it: two services on one machine would then run each other's workflows
 * against their own databases.
 */
export async function ensurePortFree(port: number, variable: string): Promise<void> {
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new EmbeddedPortUnavailable(`${variable} must be a port number (1-65535), not "${String(port)}"`);
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
        reject(
          new EmbeddedPortUnavailable(
            `port ${port} for the embedded Temporal is already in use by another process; stop it or set ${variable} to a free port`,
          ),
        );
      } else reject(error);
    });
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export interface RunningTemporal {
  address: string;
  uiUrl: string | undefined;
  env: TestWorkflowEnvironment;
  stop: () => Promise<void>;
}

/**
 * The Temporal dev server (`temporal server start-dev`), persisting to `dataDir` when given, with
 * the given search attributes registered (the service's, from workflows/search-attributes.ts).
 */
export async function startDevServer(options: {
  searchAttributes: SearchAttributeKey<SearchAttributeType>[];
  dataDir?: string;
  port?: number;
  ui?: boolean;
  uiPort?: number;
}): Promise<RunningTemporal> {
  let dbFilename: string | undefined;
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true });
    dbFilename = path.resolve(options.dataDir, 'temporal.sqlite');
  }
  const executable = temporalExecutable('cli');
  const ui = options.ui ?? false;
  const uiPort = options.uiPort ?? EMBEDDED_TEMPORAL_UI_PORT;
  // Loaded here, not at module load: @temporalio/testing is a development dependency, absent from
  // the production image, which never starts an embedded server.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ...(executable ? { executable } : {}),
      ...(dbFilename ? { dbFilename } : {}),
      ip: '127.0.0.1',
      ...(options.port !== undefined ? { port: options.port } : {}),
      ui,
      ...(ui ? { uiPort } : {}),
      searchAttributes: options.searchAttributes,
      extraArgs: ['--log-level', 'error'],
    },
  });
  return {
    address: env.address,
    uiUrl: ui ? `http://localhost:${uiPort}` : undefined,
    env,
    stop: () => env.teardown(),
  };
}
