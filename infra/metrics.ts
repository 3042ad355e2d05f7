import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RETRY_SPAN_MS } from '../domain/webhooks/retry-schedule.ts';
import { capConnections, DEFAULT_LISTENER_LIMITS, listenerOptions, type ListenerLimits } from './listener-limits.ts';

/**
 * The process's metrics, one registry per process (the API and the worker are separate processes
 * in production; `npm start` runs both in one and serves one set). Labels take values from fixed
 * sets only: operation ids from the registry (or a route template), status codes, problem codes,
 * outcome and reason words, channel names (the gauges read from the database: at most 1,000; the
 * counters of attempts: at most MAX_CHANNEL_LABELS per process, see channelLabel).
 */
export const registry = new Registry();

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const apiRequests = new Counter({
  name: 'svc_api_requests_total',
  help: 'API requests answered, by operation id (or route template) and status code',
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

export const apiRequestDuration = new Histogram({
  name: 'svc_api_request_duration_seconds',
  help: 'Time from a request reaching the app to the last byte of its answer, by operation',
  labelNames: ['operation'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const apiRateLimited = new Counter({
  name: 'svc_api_rate_limit_refusals_total',
  help: 'Requests refused with rate_limited (a channel or an installation over its per-minute limit), by operation',
  labelNames: ['operation'] as const,
  registers: [registry],
});

export const apiAuthRefusals = new Counter({
  name: 'svc_api_auth_refusals_total',
  help: 'Requests refused for their credentials (every 401, and too_many_failed_authentications), by code',
  labelNames: ['code'] as const,
  registers: [registry],
});

export const sandboxRequestLogFailures = new Counter({
  name: 'svc_sandbox_request_log_failures_total',
  help: "Sandbox requests answered whose record in the channel's request log could not be written (the answer stands)",
  registers: [registry],
});

export const connectionsRefused = new Counter({
  name: 'svc_api_connections_refused_total',
  help: 'Connections an API listener (public, internal, plain) closed on arrival, by cap: max_connections (the listener is full) or per_address (the client address holds its share)',
  labelNames: ['listener', 'reason'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'svc_webhook_attempts_total',
  help: 'Webhook POSTs made, by kind (delivery or ping), outcome (delivered, failed, gone) and failure reason (none when delivered)',
  labelNames: ['kind', 'outcome', 'reason'] as const,
  registers: [registry],
});

export const webhookAttemptDuration = new Histogram({
  name: 'svc_webhook_attempt_duration_seconds',
  help: 'Duration of a webhook POST from the call (name resolution included) to its answer or failure, by kind and outcome',
  labelNames: ['kind', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [registry],
});

/**
 * Channels named in the labels of one process. Channels are few (an operator creates each one) and
 * their names are checked (`^[a-z][a-z0-9-]{1,62}$`); past this many in one process, further ones
 * are counted under OTHER_CHANNELS, so a deployment that grows past it keeps a bounded series count.
 */
export const MAX_CHANNEL_LABELS = 100;
/** The label of the channels past MAX_CHANNEL_LABELS: `_` is not allowed in a channel's name. */
export const OTHER_CHANNELS = '_other';
const labelledChannels = new Set<string>();

/** The `channel` label value of a channel name: its name, or OTHER_CHANNELS once MAX_CHANNEL_LABELS are named. */
export function channelLabel(name: string): string {
  if (labelledChannels.has(name)) return name;
  if (labelledChannels.size >= MAX_CHANNEL_LABELS) return OTHER_CHANNELS;
  labelledChannels.add(name);
  return name;
}

export const webhookChannelAttempts = new Counter({
  name: 'svc_webhook_channel_attempts_total',
  help: 'Delivery attempts (POSTs of an event) by channel and outcome (delivered, failed, gone); pings are not counted here',
  labelNames: ['channel', 'outcome'] as const,
  registers: [registry],
});

export const webhookCommitToDelivery = new Histogram({
  name: 'svc_webhook_commit_to_delivery_seconds',
  help: "From an event's commit (its occurred_at, the stamp of the transaction that wrote it) to the recorded 2xx of its delivery to one endpoint, by attempt (first, retry)",
  labelNames: ['attempt'] as const,
  // From a delivery that follows its commit at once to one retried for the whole retry span.
  buckets: [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 21600, 86400, RETRY_SPAN_MS / 1000],
  registers: [registry],
});

/** Counts one delivery attempt of an event to an endpoint of `channel` (the worker's attempt path). */
export function countChannelAttempt(channel: string | undefined, outcome: string): void {
  webhookChannelAttempts.inc({ channel: channel === undefined ? OTHER_CHANNELS : channelLabel(channel), outcome });
}

/**
 * Observes a delivery recorded as delivered at `deliveredAt` (attempt `attempt`, 1 for the first)
 * of an event committed at `occurredAt`. The two instants come from different processes' clocks
 * (the API's and the worker's); a skew that makes the difference negative is observed as 0.
 */
export function observeCommitToDelivery(occurredAt: Date, deliveredAt: Date, attempt: number): void {
  const seconds = Math.max(0, (deliveredAt.getTime() - occurredAt.getTime()) / 1000);
  webhookCommitToDelivery.observe({ attempt: attempt <= 1 ? 'first' : 'retry' }, seconds);
}

export interface DispatchLag {
  channel: string;
  undispatched: number;
  oldestSeconds: number;
}

export interface SuspendedEndpoints {
  channel: string;
  reason: string;
  count: number;
}

export interface OverdueDeliveries {
  channel: string;
  overdueSeconds: number;
}

export interface CatchUpProgress {
  taskQueue: string;
  remaining: number;
  finishedAt: Date | null;
}

export interface PartitionsAhead {
  table: string;
  days: number;
}

/** Sources read on scrape (the worker registers its database); several at once are summed by label. */
interface ScrapeSources {
  dispatchLag: () => Promise<DispatchLag[]>;
  suspendedEndpoints: () => Promise<SuspendedEndpoints[]>;
  overdueDeliveries: () => Promise<OverdueDeliveries[]>;
  certificateExpiryCatchUp: () => Promise<CatchUpProgress[]>;
  partitionsAhead: () => Promise<PartitionsAhead[]>;
}

const sources = new Set<ScrapeSources>();

/** Reads the database at scrape time; a scrape that cannot read it shows the series absent, not stale. */
export function watchDatabase(source: ScrapeSources): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

/** Reads under way, by source: the gauges of one scrape are collected concurrently and share one read. */
const reading = new Map<keyof ScrapeSources, Promise<unknown[]>>();

function readAll<T>(name: keyof ScrapeSources): Promise<T[]> {
  let read = reading.get(name);
  if (!read) {
    read = (async () => {
      const results = await Promise.allSettled([...sources].map((source) => source[name]()));
      scrapeErrors.inc(results.filter((result) => result.status === 'rejected').length);
      return results.flatMap((result): unknown[] => (result.status === 'fulfilled' ? result.value : []));
    })().finally(() => reading.delete(name));
    reading.set(name, read);
  }
  return read as Promise<T[]>;
}

const scrapeErrors = new Counter({
  name: 'svc_metrics_scrape_errors_total',
  help: 'Scrapes whose database reads failed (their series are left out of that scrape)',
  registers: [registry],
});

export const dispatchUndispatched = new Gauge({
  name: 'svc_dispatch_undispatched_events',
  help: 'Events in a channel log the dispatcher has not yet turned into deliveries (read from the database on scrape)',
  labelNames: ['channel'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<DispatchLag>('dispatchLag');
    this.reset();
    for (const row of rows) this.inc({ channel: row.channel }, row.undispatched);
  },
});

// The same read as the gauge above, shared while it is under way.
export const dispatchOldest = new Gauge({
  name: 'svc_dispatch_oldest_undispatched_seconds',
  help: 'Age of the oldest event of a channel not yet dispatched, 0 when none waits (read from the database on scrape)',
  labelNames: ['channel'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<DispatchLag>('dispatchLag');
    this.reset();
    for (const row of rows) this.set({ channel: row.channel }, Math.max(row.oldestSeconds, 0));
  },
});

export const endpointsSuspended = new Gauge({
  name: 'svc_webhook_endpoints_suspended',
  help: 'Webhook endpoints suspended by the service (failing after the retry schedule, or gone on a 410), by channel and reason',
  labelNames: ['channel', 'reason'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<SuspendedEndpoints>('suspendedEndpoints');
    this.reset();
    for (const row of rows) this.inc({ channel: row.channel, reason: row.reason }, row.count);
  },
});

export const deliveriesOverdue = new Gauge({
  name: 'svc_webhook_delivery_overdue_seconds',
  help: 'How long the most overdue pending delivery of a channel has waited past its due time (its creation for a first attempt, its scheduled retry after), 0 when none is overdue (read from the database on scrape)',
  labelNames: ['channel'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<OverdueDeliveries>('overdueDeliveries');
    this.reset();
    // Several databases watched at once (tests): the worst of them.
    const worst = new Map<string, number>();
    for (const row of rows) worst.set(row.channel, Math.max(worst.get(row.channel) ?? 0, row.overdueSeconds, 0));
    for (const [channel, seconds] of worst) this.set({ channel }, seconds);
  },
});

// The catch-up's progress, one series per task queue: absent before a pass began.
export const certificateExpiryCatchUpRemaining = new Gauge({
  name: 'svc_certificate_expiry_catch_up_remaining_properties',
  help: "Properties the certificate-expiry catch-up's pass under way has still to visit, 0 once it finished (read from the database on scrape)",
  labelNames: ['task_queue'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<CatchUpProgress>('certificateExpiryCatchUp');
    this.reset();
    for (const row of rows) this.set({ task_queue: row.taskQueue }, row.remaining);
  },
});

export const certificateExpiryCatchUpFinished = new Gauge({
  name: 'svc_certificate_expiry_catch_up_finished_timestamp_seconds',
  help: 'When a pass of the certificate-expiry catch-up last finished, in Unix seconds; absent before one finished (read from the database on scrape)',
  labelNames: ['task_queue'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<CatchUpProgress>('certificateExpiryCatchUp');
    this.reset();
    for (const row of rows)
      if (row.finishedAt) this.set({ task_queue: row.taskQueue }, row.finishedAt.getTime() / 1000);
  },
});

export const partitionDaysAhead = new Gauge({
  name: 'svc_partition_days_ahead',
  help: "Days from now to the end of a partitioned table's last day: how long writes go on if the housekeeping pass stops creating days (read from the database on scrape)",
  labelNames: ['table'] as const,
  registers: [registry],
  async collect() {
    const rows = await readAll<PartitionsAhead>('partitionsAhead');
    this.reset();
    // Several databases watched at once (tests): the nearest end.
    const nearest = new Map<string, number>();
    for (const row of rows) nearest.set(row.table, Math.min(nearest.get(row.table) ?? Infinity, row.days));
    for (const [table, days] of nearest) this.set({ table }, days);
  },
});

let defaultsCollected = false;

export interface MetricsServer {
  url: string;
  close: () => Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text format) on a listener of its own, apart from the API's
 * TLS listeners: bind it to loopback or a private network, it has no authentication. Its timeouts
 * and connection cap are the API listeners' (no per-address cap: a scraper or two call it).
 */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  limits?: ListenerLimits;
}): Promise<MetricsServer> {
  if (!defaultsCollected) {
    collectDefaultMetrics({ register: registry });
    defaultsCollected = true;
  }
  const limits = options.limits ?? DEFAULT_LISTENER_LIMITS;
  const server: Server = createServer(listenerOptions(limits), (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        res
          .writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  capConnections(server, limits, {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
