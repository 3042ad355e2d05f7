import { Runtime, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ServiceConfig } from './config.ts';
import { catchUpProgress } from '../db/certificate-expiry-catch-up.ts';
import { dispatchLag, overdueDeliveries, suspendedEndpoints } from '../db/monitoring.ts';
import { daysAhead } from '../db/partitions.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import { startMetricsServer, watchDatabase, type MetricsServer } from '../infra/metrics.ts';

/** The process's `/metrics` listener on METRICS_HOST:METRICS_PORT, or none when METRICS_PORT is off. */
export async function serveMetrics(config: ServiceConfig, log: Logger): Promise<MetricsServer | undefined> {
  if (config.metrics.port === undefined) return undefined;
  const server = await startMetricsServer({
    host: config.metrics.host,
    port: config.metrics.port,
    limits: config.http.limits,
  });
  log.info('metrics listening', { url: server.url });
  return server;
}

/** The worker's scrape-time gauges (dispatcher lag, suspended endpoints, overdue deliveries, the certificate-expiry catch-up, the days of partitions ahead) read this database until the returned stop. */
export function watchWorkerDatabase(orm: MikroORM, clock: Clock): () => void {
  return watchDatabase({
    dispatchLag: () => dispatchLag(orm.em.fork(), clock.now()),
    suspendedEndpoints: () => suspendedEndpoints(orm.em.fork()),
    overdueDeliveries: () => overdueDeliveries(orm.em.fork(), clock.now()),
    certificateExpiryCatchUp: () => catchUpProgress(orm.em.fork()),
    partitionsAhead: () => daysAhead(orm.em.fork(), clock.now()),
  });
}

const LEVELS: Record<LogLevel, 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The Temporal SDK's logger in our terms: its lines (the worker's state, workflow `log` calls with
 * the workflow's id, type and run, the SDK's activity lines with the activity's, and Core's own
 * warnings) become JSON lines of ours, redacted the same way.
 */
export function temporalLogger(log: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) =>
    log[LEVELS[level]](message, { source: 'temporal', ...meta });
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/**
 * Installs the Temporal runtime of a worker process before anything creates it: its log lines go
 * through our logger, and its own metrics (task slots, poll and schedule-to-start latencies,
 * sticky cache, activity and workflow task failures...) are served by Core's Prometheus exporter
 * on METRICS_HOST:TEMPORAL_METRICS_PORT. They are not forwarded into our registry: the SDK's only
 * way to hand them to JavaScript is its experimental metrics buffer.
 */
export function installTemporalRuntime(config: ServiceConfig, log: Logger): { metricsUrl: string | undefined } {
  const { host, temporalPort } = config.metrics;
  const bindAddress =
    temporalPort === undefined ? undefined : `${host.includes(':') ? `[${host}]` : host}:${temporalPort}`;
  Runtime.install({
    logger: temporalLogger(log),
    // The process's own handlers stop the worker on a signal, in their order (scripts/start.ts,
    // scripts/worker.ts). The runtime's default handlers would shut it down beside them, and a
    // signal during the start could then close the worker's connection before its stop did.
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(bindAddress
        ? { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } }
        : {}),
    },
  });
  return { metricsUrl: bindAddress ? `http://${bindAddress}/metrics` : undefined };
}
