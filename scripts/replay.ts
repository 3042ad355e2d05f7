/**
 * `npm run replay -- [--query Q] [--limit N] [--bundle FILE]`: replays recent histories of the
 * configured namespace against this release's workflow code before it is deployed
 * (docs/operations.md, "Replay before deploy"). One line per workflow on stdout and a summary;
 * exit 1 when any history does not replay, 2 on a usage or connection error.
 */
import { Runtime } from '@temporalio/worker';
import { loadConfig } from '../app/config.ts';
import { temporalLogger } from '../app/observability.ts';
import { parseReplayArguments, REPLAY_USAGE, replayRecentHistories } from '../app/replay.ts';
import { readRuntimeFile } from '../app/servers.ts';
import { createLogger } from '../infra/logger.ts';
import { connectTemporalClient } from '../infra/temporal.ts';

const fail = (message: string): never => {
  process.stderr.write(`replay: ${message}\n`);
  process.exit(2);
};

let args: ReturnType<typeof parseReplayArguments>;
try {
  args = parseReplayArguments(process.argv.slice(2));
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${REPLAY_USAGE}`);
}

const config = loadConfig();
// The replaying worker's own lines go to stderr through the service's logger: at the default level
// only warnings (a failed task says why), not the bundler's report.
Runtime.install({
  logger: temporalLogger(createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { process: 'replay' })),
  telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
});
// Like the operator CLI: the configured frontend, else a running `npm start`'s embedded one.
const address = config.temporal.address ?? (await readRuntimeFile(config.dataDir))?.temporalAddress;
if (!address) fail('no Temporal: set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_TLS_* as for the worker)');

let exitCode: number;
const temporal = await connectTemporalClient(
  { ...config.temporal, address: address! },
  config.temporal.namespace,
).catch((error: unknown) =>
  fail(`cannot connect to ${address}: ${error instanceof Error ? error.message : String(error)}`),
);
try {
  const summary = await replayRecentHistories({
    client: temporal.client,
    query: args!.query,
    limit: args!.limit,
    bundlePath: args!.bundle,
    write: (line) => process.stdout.write(`${line}\n`),
  });
  exitCode = summary.failed > 0 ? 1 : 0;
} catch (error) {
  // A refused query arrives as "Failed to list workflows" with the server's reason as its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  process.stderr.write(`replay: ${error instanceof Error ? error.message : String(error)}${cause}\n`);
  exitCode = 2;
} finally {
  await temporal.close();
}
process.exit(exitCode);
