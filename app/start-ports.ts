import type { ServiceConfig } from './config.ts';
import {
  ensurePortFree,
  PortUnavailable,
  postgresPortUse,
  temporalPortUse,
  temporalUiPortUse,
  type PortUse,
} from '../infra/ports.ts';

/**
 * Every port `npm start` binds with this configuration, each with the variable that moves it: the
 * embedded servers' (when DATABASE_URL / TEMPORAL_ADDRESS leave them to it), the API's listeners,
 * and both metrics listeners. A port 0 (the system's choice) or `off` is left out.
 */
export function startPorts(config: ServiceConfig): PortUse[] {
  const uses: PortUse[] = [];
  if (!config.databaseUrl) uses.push(postgresPortUse(config.embedded.postgresPort));
  if (!config.temporal.address)
    uses.push(temporalPortUse(config.embedded.temporalPort), temporalUiPortUse(config.embedded.temporalUiPort));
  const { host } = config.http;
  uses.push({ what: 'the API', variable: 'PORT', host, port: config.http.port });
  uses.push({ what: 'plain HTTP', variable: 'HTTP_PORT', host, port: config.http.plainPort });
  if (config.internal) uses.push({ what: 'the platform interface', variable: 'INTERNAL_PORT', ...config.internal });
  const metricsHost = config.metrics.host;
  if (config.metrics.port !== undefined)
    uses.push({ what: 'the metrics', variable: 'METRICS_PORT', host: metricsHost, port: config.metrics.port });
  if (config.metrics.temporalPort !== undefined)
    uses.push({
      what: "the Temporal worker's metrics",
      variable: 'TEMPORAL_METRICS_PORT',
      host: metricsHost,
      port: config.metrics.temporalPort,
    });
  return uses.filter((use) => use.port !== 0);
}

/**
 * Refuses, before anything starts, a port another process holds, and two variables that name one
 * port (the second listener would fail half-way through the start).
 */
export async function refuseUnavailablePorts(uses: PortUse[]): Promise<void> {
  for (const [i, use] of uses.entries()) {
    const twin = uses.slice(0, i).find((other) => other.port === use.port);
    if (twin)
      throw new PortUnavailable(
        `${twin.variable} and ${use.variable} both name port ${use.port}; set one of them to another port`,
      );
  }
  for (const use of uses) await ensurePortFree(use);
}

/**
 * A bind that failed after the check (another process took the port meanwhile), as the same one
 * line: Node's EADDRINUSE from a listener, or the Temporal SDK's from its metrics exporter.
 */
export function portRefusal(error: unknown, uses: PortUse[]): PortUnavailable | undefined {
  if (error instanceof PortUnavailable) return error;
  const failure = error as Partial<NodeJS.ErrnoException> & { port?: number };
  if (failure?.code === 'EADDRINUSE') {
    const use = uses.find((candidate) => candidate.port === failure.port);
    if (use) return PortUnavailable.inUse(use);
  }
  const message = error instanceof Error ? error.message : '';
  if (/prometheus metrics exporter: Address already in use/i.test(message)) {
    const use = uses.find((candidate) => candidate.variable === 'TEMPORAL_METRICS_PORT');
    if (use) return PortUnavailable.inUse(use);
  }
  return undefined;
}
