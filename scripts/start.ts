/**
 * `npm start`: the API and the worker in one process, on embedded PostgreSQL and Temporal unless
 * DATABASE_URL / TEMPORAL_ADDRESS name real ones. Ctrl-C stops everything it started.
 */
import path from 'node:path';
import { loadConfig } from '../app/config.ts';
import { createLogger } from '../infra/logger.ts';
import { startTracing } from '../infra/tracing.ts';

// `npm start` is the development entry point: development-only settings are allowed here.
process.env.NODE_ENV ??= 'development';
const config = loadConfig();
// Tracing (when OTEL_* asks for it) starts before anything loads Express or pg: what follows is
// imported only now, so their instrumentation patches them as they load.
const tracing = await startTracing('all');
const log = createLogger(config.logLevel);
const { startApiProcess, startWorkerProcess } = await import('../app/processes.ts');
const { resolveServices, writeRuntimeFile } = await import('../app/servers.ts');
const { installTemporalRuntime, serveMetrics } = await import('../app/observability.ts');
const { EmbeddedPortUnavailable } = await import('../infra/embedded-temporal.ts');
const say = (line: string) => process.stdout.write(`${line}\n`);

// Before anything creates Temporal's runtime (the embedded dev server does): its logs and metrics are ours.
const temporalRuntime = installTemporalRuntime(config, log);
const services = await resolveServices(config, say).catch((error: unknown) => {
  if (!(error instanceof EmbeddedPortUnavailable)) throw error;
  process.stderr.write(`start: ${error.message}\n`);
  process.exit(1);
});
const endpoints = { databaseUrl: services.databaseUrl, temporalAddress: services.temporalAddress };
const stops: (() => Promise<void>)[] = [services.stop, tracing.shutdown];
let stopping = false;
async function stopAll(exitCode: number) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  for (const stop of stops) await stop().catch((error: unknown) => log.error('stop failed', { error: String(error) }));
  process.exit(exitCode);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  const worker = await startWorkerProcess(config, endpoints, log, { prebuilt: false });
  stops.unshift(worker.stop);
  const api = await startApiProcess(config, endpoints, log);
  stops.unshift(api.stop);
  // One process, one set of metrics: the API's and the worker's in the same registry.
  const metrics = await serveMetrics(config, log);
  if (metrics) stops.unshift(metrics.close);
  await writeRuntimeFile(config.dataDir, { ...endpoints, apiUrl: api.url, pid: process.pid });
  say(`Distribution Service (${config.environment}) is up`);
  say(`  API          ${api.url}/api/v1/distribution  (plain HTTP ${api.plainUrl ?? 'off'} refuses)`);
  say(`  platform     ${api.internalUrl ?? api.url}/internal/v1`);
  if (api.tls.selfSigned) say(`  certificate  self-signed: ${api.tls.certPath}`);
  say(`  Temporal UI  ${services.temporalUiUrl ?? `(cluster at ${services.temporalAddress})`}`);
  say(`  metrics      ${metrics?.url ?? 'off'}; Temporal worker metrics ${temporalRuntime.metricsUrl ?? 'off'}`);
  say(`  tracing      ${tracing.on ? 'on (OTEL_* variables)' : 'off'}`);
  say(`  data         ${path.resolve(config.dataDir)}`);
  say('Ctrl-C stops everything.');
  void worker.running.then(() => stopAll(stopping ? 0 : 1));
} catch (error) {
  log.error('start failed', { error: error instanceof Error ? error.stack : String(error) });
  await stopAll(1);
}
