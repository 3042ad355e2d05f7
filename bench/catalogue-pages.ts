/**
 * bench/catalogue.ts's comparison of pages per second: the service's `GET /properties?limit=100`
 * against the bare `node:https` + `pg` floor (bench/bare-catalogue.ts), at 1 and 8 clients, the
 * two servers' rounds interleaved so that a machine loaded by others weighs on both alike.
 */
import { readPages, type Throughput } from './bare-catalogue.ts';
import { postgresCpuBetween, type BackendCpu } from './postgres-cpu.ts';

/** The client counts compared. */
const CLIENT_COUNTS = [1, 8] as const;
/** Seconds of untimed reading per server and client count before the rounds: warm code and caches. */
const WARM_UP_SECONDS = 1;

/** One server to read pages from. */
export interface Target {
  url: string;
  headers: Record<string, string>;
}

/** The comparison's settings: its servers, their certificate, its rounds, and PostgreSQL's CPU. */
export interface Comparison {
  targets: { service: Target; bare: Target };
  ca: string;
  rounds: number;
  seconds: number;
  readPostgresCpu: () => Promise<BackendCpu | null>;
  /** Where the servers run in processes of their own (bench/catalogue-pair.ts): each one's CPU so far, in ms. */
  readServerCpu?: { service: () => number | null; bare: () => number | null };
  /** Records per page (default 100). */
  limit?: number;
}

type Measured = Throughput & { postgresCpuMs: number | null; serverCpuMs: number | null };

/** The median, 95th percentile and count of samples, in the bench's 2 decimals. */
export function summary(samples: number[]): { median: number; p95: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { median: Number(at(0.5).toFixed(2)), p95: Number(at(0.95).toFixed(2)), n: samples.length };
}

/** A run of `readPages`, with the PostgreSQL CPU it cost (null where /proc cannot tell). */
async function measured(comparison: Comparison, name: 'service' | 'bare', clients: number): Promise<Measured> {
  const serverCpu = comparison.readServerCpu?.[name] ?? (() => null);
  const before = await comparison.readPostgresCpu();
  const serverBefore = serverCpu();
  const run = await readPages(comparison.targets[name], comparison.ca, clients, comparison.seconds, comparison.limit);
  const serverAfter = serverCpu();
  const after = await comparison.readPostgresCpu();
  const serverCpuMs = serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore;
  return { ...run, postgresCpuMs: postgresCpuBetween(before, after), serverCpuMs };
}

/** A cost per page over runs, pooled; 'unknown' when any run's cost is. */
function perPage(list: Measured[], cost: (run: Measured) => number | null): number | 'unknown' {
  const costs = list.map(cost);
  if (costs.some((c) => c === null)) return 'unknown';
  const total = (costs as number[]).reduce((a, b) => a + b, 0);
  return Number((total / list.reduce((n, run) => n + run.pages, 0)).toFixed(2));
}

/** Pages per second over runs, pooled. */
const rate = (list: Throughput[]) =>
  list.reduce((n, run) => n + run.pages, 0) / list.reduce((t, run) => t + run.seconds, 0);

/** The figures of one client count: rates, ratio, latencies, and CPU per page of either server. */
function figures(runs: { service: Measured[]; bare: Measured[] }): Record<string, unknown> {
  const service = rate(runs.service);
  const floor = rate(runs.bare);
  return {
    service_pages_per_s: Number(service.toFixed(1)),
    bare_pages_per_s: Number(floor.toFixed(1)),
    ratio: Number((service / floor).toFixed(2)),
    service_ms: summary(runs.service.flatMap((run) => run.latencies)),
    bare_ms: summary(runs.bare.flatMap((run) => run.latencies)),
    median_round_ratio: summary(
      runs.service.map((run, i) => run.pages / run.seconds / (runs.bare[i]!.pages / runs.bare[i]!.seconds)),
    ).median,
    // The clients run in this process too and cost the same per page on either server, so the
    // difference between the two is the service's own.
    process_cpu_ms_per_page: {
      service: perPage(runs.service, (run) => run.processCpuMs),
      bare: perPage(runs.bare, (run) => run.processCpuMs),
    },
    postgres_cpu_ms_per_page: {
      service: perPage(runs.service, (run) => run.postgresCpuMs),
      bare: perPage(runs.bare, (run) => run.postgresCpuMs),
    },
    // Only where each server is a process of its own: its CPU, the clients' not in it.
    ...(runs.service.some((run) => run.serverCpuMs !== null)
      ? {
          server_process_cpu_ms_per_page: {
            service: perPage(runs.service, (run) => run.serverCpuMs),
            bare: perPage(runs.bare, (run) => run.serverCpuMs),
          },
        }
      : {}),
    pages: {
      service: runs.service.reduce((n, run) => n + run.pages, 0),
      bare: runs.bare.reduce((n, run) => n + run.pages, 0),
    },
    median_round_pages_per_s: {
      service: summary(runs.service.map((run) => run.pages / run.seconds)).median,
      bare: summary(runs.bare.map((run) => run.pages / run.seconds)).median,
    },
  };
}

/** The whole comparison: per client count, a warm-up of each server, then the interleaved rounds. */
export async function comparePages(comparison: Comparison): Promise<Record<string, unknown>> {
  const throughput: Record<string, unknown> = {};
  for (const clients of CLIENT_COUNTS) {
    const runs: { service: Measured[]; bare: Measured[] } = { service: [], bare: [] };
    for (const name of ['service', 'bare'] as const)
      await readPages(comparison.targets[name], comparison.ca, clients, WARM_UP_SECONDS, comparison.limit);
    // Each server goes first in every other round, so neither always follows the other's load.
    for (let round = 0; round < comparison.rounds; round += 1) {
      const order = round % 2 === 0 ? (['service', 'bare'] as const) : (['bare', 'service'] as const);
      for (const name of order) runs[name].push(await measured(comparison, name, clients));
    }
    throughput[`${clients} client${clients === 1 ? '' : 's'}`] = figures(runs);
  }
  return throughput;
}
