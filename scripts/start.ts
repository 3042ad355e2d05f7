/**
 * `npm start`: the API and the worker in one process, on embedded PostgreSQL and Temporal unless
 * DATABASE_URL / TEMPORAL_ADDRESS name real ones. Ctrl-C stops everything it started.
 */
import path from 'node:path';
// Only what the stop needs is imported before the signal handlers below are in place; the rest is
// imported after them, so a Ctrl-C at any moment from the first milliseconds on is a clean stop.
import { ChildFailed, closeChildren, killChildren, stopChildren } from '../infra/child-processes.ts';

// `npm start` is the development entry point: development-only settings are allowed here.
process.env.NODE_ENV ??= 'development';
const say = (line: string) => process.stdout.write(`${line}\n`);
/** How long the stop may take before the embedded servers are killed and the process exits. */
const STOP_DEADLINE_MS = 30_000;

// The stops run newest first; the embedded servers are stopped last, whatever the start reached.
const stops: (() => Promise<void>)[] = [];
let stopping = false;
let logStopFailure: (error: unknown) => void = (error) => void process.stderr.write(`stop failed: ${String(error)}\n`);
async function stopAll(exitCode: number) {
  if (stopping) return;
  stopping = true;
  closeChildren();
  say('stopping…');
  setTimeout(() => {
    process.stderr.write(`start: the stop took over ${STOP_DEADLINE_MS / 1000} s; the embedded servers were killed\n`);
    killChildren();
    process.exit(exitCode || 1);
  }, STOP_DEADLINE_MS).unref();
  for (const stop of stops) await stop().catch(logStopFailure);
  await stopChildren().catch(logStopFailure);
  process.exit(exitCode);
}
// From the first line on: a signal during the start stops what has started and starts nothing more.
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
// The terminal closed: the embedded servers, in sessions of their own, would not hear of it.
process.on('SIGHUP', () => void stopAll(0));

const { loadConfig } = await import('../app/config.ts');
const { portRefusal, refuseUnavailablePorts, startPorts } = await import('../app/start-ports.ts');
const { createLogger } = await import('../infra/logger.ts');
const { startTracing } = await import('../infra/tracing.ts');
const config = loadConfig();
const ports = startPorts(config);
// Before anything binds or starts: a held port is refused with nothing to stop behind it.
await refuseUnavailablePorts(ports).catch((error: unknown) => {
  process.stderr.write(`start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
// Tracing (when OTEL_* asks for it) starts before anything loads Express or pg: what follows is
// imported only now, so their instrumentation patches them as they load.
const tracing = await startTracing('all');
stops.push(tracing.shutdown);
const log = createLogger(config.logLevel);
logStopFailure = (error: unknown) => log.error('stop failed', { error: String(error) });
const { startApiProcess, startWorkerProcess } = await import('../app/processes.ts');
const { resolveServices, writeRuntimeFile } = await import('../app/servers.ts');
const { installTemporalRuntime, serveMetrics } = await import('../app/observability.ts');

try {
  // Before anything creates Temporal's runtime (the embedded dev server does): its logs and metrics are ours.
  const temporalRuntime = installTemporalRuntime(config, log);
  const services = await resolveServices(config, say);
  stops.unshift(services.stop);
  const endpoints = { databaseUrl: services.databaseUrl, temporalAddress: services.temporalAddress };
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
  // A start that cannot go on: one line for a refused port or a child that failed, else the stack in the log.
  if (!stopping) {
    const refusal = portRefusal(error, ports);
    if (refusal || error instanceof ChildFailed)
      process.stderr.write(`start: ${(refusal ?? (error as Error)).message}\n`);
    else log.error('start failed', { error: error instanceof Error ? error.stack : String(error) });
    await stopAll(1);
  }
}
