/** `npm run start:api`: the API alone, against the configured Postgres and Temporal (production). */
import { loadConfig } from '../app/config.ts';
import { createLogger } from '../infra/logger.ts';
import { startTracing } from '../infra/tracing.ts';

const config = loadConfig();
// Tracing (when OTEL_* asks for it) starts before anything loads Express or pg: what follows is
// imported only now, so their instrumentation patches them as they load.
const tracing = await startTracing('api');
const log = createLogger(config.logLevel, { process: 'api' });
if (!config.databaseUrl || !config.temporal.address) {
  log.error('start:api needs DATABASE_URL and TEMPORAL_ADDRESS; use npm start for the embedded servers');
  process.exit(2);
}
const { startApiProcess } = await import('../app/processes.ts');
const { serveMetrics } = await import('../app/observability.ts');
const metrics = await serveMetrics(config, log);
const api = await startApiProcess(
  config,
  { databaseUrl: config.databaseUrl, temporalAddress: config.temporal.address },
  log,
);
log.info('api listening', { url: api.url, plainUrl: api.plainUrl, internalUrl: api.internalUrl, tracing: tracing.on });
const stop = () =>
  void api
    .stop()
    .then(() => metrics?.close())
    .then(() => tracing.shutdown())
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
