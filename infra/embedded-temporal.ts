import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { SearchAttributeKey, SearchAttributeType } from '@temporalio/common/lib/search-attributes.js';
import { ChildFailed, startServerChild } from './child-processes.ts';
import { onFreeLoopbackPort, temporalPortUse, temporalUiPortUse } from './ports.ts';
import { temporalExecutable } from './temporal-binaries.ts';

/** The dev server, on 2 cores and its SQLite file, is usually ready within 2-3 s. */
const READY_TIMEOUT_MS = 60_000;

export interface RunningTemporal {
  address: string;
  uiUrl: string | undefined;
  stop: () => Promise<void>;
}

/** True once the frontend answers (the check the SDK's own launcher made). */
async function answers(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  await connection.close();
  return true;
}

/**
 * The Temporal dev server (`temporal server start-dev`), persisting to `dataDir` when given, with
 * the given search attributes registered (the service's, from workflows/search-attributes.ts).
 * Spawned here rather than by the SDK's test environment so that it runs in a process group of
 * its own (stopping it ends it, every time), without the service's OTEL_* settings, and so that a
 * failed start is reported with the server's own last words and exit code.
 */
export async function startDevServer(options: {
  searchAttributes: SearchAttributeKey<SearchAttributeType>[];
  dataDir?: string;
  /** Unset: a free port of the system's choosing. */
  port?: number;
  /** The web UI's port; unset: no UI (`--headless`). */
  uiPort?: number;
}): Promise<RunningTemporal> {
  const executable = temporalExecutable('cli');
  if (!executable)
    throw new ChildFailed(
      'the Temporal CLI (`temporal`) was not found: run `source scripts/tools.sh`, or set TEMPORAL_CLI to its path',
    );
  const on = (port: number) => startOn(executable.path, { ...options, port });
  return options.port === undefined ? onFreeLoopbackPort(on) : on(options.port);
}

async function startOn(
  executable: string,
  options: {
    searchAttributes: SearchAttributeKey<SearchAttributeType>[];
    dataDir?: string;
    port: number;
    uiPort?: number | undefined;
  },
): Promise<RunningTemporal> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--namespace', 'default'];
  args.push('--log-format', 'pretty', '--log-level', 'error');
  // As the SDK's launcher sets them: Updates on, and no check of the SDK's version.
  for (const value of [
    'frontend.enableServerVersionCheck=false',
    'frontend.enableUpdateWorkflowExecution=true',
    'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
  ])
    args.push('--dynamic-config-value', value);
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true });
    args.push('--db-filename', path.resolve(options.dataDir, 'temporal.sqlite'));
  }
  if (options.uiPort !== undefined) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  for (const { name, type } of options.searchAttributes)
    args.push('--search-attribute', `${name}=${TypedSearchAttributes.toMetadataType(type)}`);

  const ports = [
    temporalPortUse(options.port),
    ...(options.uiPort !== undefined ? [temporalUiPortUse(options.uiPort)] : []),
  ];
  const child = startServerChild({
    name: 'the embedded Temporal',
    command: executable,
    args,
    ports,
    // The CLI stops on SIGTERM; past the grace its group is killed (SQLite keeps what was committed).
    stopSignal: 'SIGTERM',
    stopGraceMs: 10_000,
    // At --log-level error, what it writes once up is worth seeing.
    forwardStderr: true,
  });
  const address = `127.0.0.1:${options.port}`;
  await child.ready(() => answers(address), READY_TIMEOUT_MS);
  return {
    address,
    uiUrl: options.uiPort !== undefined ? `http://localhost:${options.uiPort}` : undefined,
    stop: child.stop,
  };
}
