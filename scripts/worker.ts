/** `npm run start:worker`: the Temporal worker alone, on the prebuilt workflow bundle when there is one. */
import { existsSync } from 'node:fs';
import { loadConfig } from '../app/config.ts';
import { createLogger } from '../infra/logger.ts';
import { startTracing } from '../infra/tracing.ts';

const config = loadConfig();
// Tracing (when OTEL_* asks for it) starts before anything loads pg: what follows is imported
// only now, so its instrumentation patches it as it loads.
const tracing = await startTracing('worker');
const log = createLogger(config.logLevel, { process: 'worker' });
if (!config.databaseUrl || !config.temporal.address) {
  log.error('start:worker needs DATABASE_URL and TEMPORAL_ADDRESS; use npm start for the embedded servers');
  process.exit(2);
}
const { startWorkerProcess } = await import('../app/processes.ts');
const { WORKFLOW_BUNDLE_PATH } = await import('../app/worker.ts');
const { installTemporalRuntime, serveMetrics } = await import('../app/observability.ts');
const temporalRuntime = installTemporalRuntime(config, log);
const metrics = await serveMetrics(config, log);
const prebuilt = existsSync(WORKFLOW_BUNDLE_PATH);
if (!prebuilt) log.warn('no prebuilt workflow bundle; bundling at start (run npm run build:workflows for production)');
const worker = await startWorkerProcess(
  config,
  { databaseUrl: config.databaseUrl, temporalAddress: config.temporal.address },
  log,
  { prebuilt },
);
log.info('worker running', {
  taskQueue: config.temporal.taskQueue,
  temporalMetrics: temporalRuntime.metricsUrl,
  tracing: tracing.on,
});
const stop = () =>
  void worker
    .stop()
    .then(() => metrics?.close())
    .then(() => tracing.shutdown())
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
