/** `npm run start:api`: the API alone, against the configured Postgres and Temporal (production). */
import { loadConfig } from '../app/config.ts';
import { createLogger } from '../infra/logger.ts';
import { startApiProcess } from '../app/processes.ts';
import { serveMetrics } from '../app/observability.ts';

const config = loadConfig();
const log = createLogger(config.logLevel, { process: 'api' });
if (!config.databaseUrl || !config.temporal.address) {
  log.error('start:api needs DATABASE_URL and TEMPORAL_ADDRESS; use npm start for the embedded servers');
  process.exit(2);
}
const metrics = await serveMetrics(config, log);
const api = await startApiProcess(
  config,
  { databaseUrl: config.databaseUrl, temporalAddress: config.temporal.address },
  log,
);
log.info('api listening', { url: api.url, plainUrl: api.plainUrl, internalUrl: api.internalUrl });
const stop = () =>
  void api
    .stop()
    .then(() => metrics?.close())
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
