/** `npm run start:worker`: the Temporal worker alone, on the prebuilt workflow bundle when there is one. */
import { existsSync } from 'node:fs';
import { loadConfig } from '../app/config.ts';
import { createLogger } from '../infra/logger.ts';
import { startWorkerProcess } from '../app/processes.ts';
import { WORKFLOW_BUNDLE_PATH } from '../app/worker.ts';
import { installTemporalRuntime, serveMetrics } from '../app/observability.ts';

const config = loadConfig();
const log = createLogger(config.logLevel, { process: 'worker' });
if (!config.databaseUrl || !config.temporal.address) {
  log.error('start:worker needs DATABASE_URL and TEMPORAL_ADDRESS; use npm start for the embedded servers');
  process.exit(2);
}
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
log.info('worker running', { taskQueue: config.temporal.taskQueue, temporalMetrics: temporalRuntime.metricsUrl });
const stop = () =>
  void worker
    .stop()
    .then(() => metrics?.close())
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
