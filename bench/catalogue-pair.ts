/**
 * `npm run bench:catalogue-pair`: the catalogue's `GET /properties?limit=100` pages measured from
 * outside the service's process, against the bare `node:https` + `pg` server
 * (bench/bare-catalogue.ts) as a process of its own, on the same rows, database and certificate.
 * Where `npm run bench:catalogue` serves both servers from its own process beside its clients,
 * here each server is the program an operator starts (bench/pair-processes.ts) and this process
 * is only the clients, in two topologies:
 *
 * - `start`: the service as `npm start` runs it (`node scripts/start.ts`: the API and the worker
 *   in one process, its embedded Temporal dev server a child; the database given by
 *   DATABASE_URL), a sandbox deployment as `npm start` is by default, logging at `info`;
 * - `api`: the API process alone as production runs it (`node scripts/api.ts`,
 *   SVC_ENVIRONMENT=production, NODE_ENV=production, the platform's interface on its own
 *   listener), against a Temporal dev server of this bench; the worker runs elsewhere.
 *
 * Both with metrics served (their default), tracing off, and their log lines (one a request at
 * `info`) written to a file, as a log collector takes them. The rows: BENCH_PROPERTIES (default
 * 400, four pages of 100 as the outside pair of issue 41 had) properties shaped as the demo's, distributed to two channels (bench/catalogue-rows.ts), on
 * a scratch database of the PostgreSQL at DATABASE_URL (default 127.0.0.1:5432), dropped at the end.
 *
 * Each service process is measured once it has settled (bench/pair-processes.ts `settle`): for a
 * minute or so after it starts, `npm start`'s worker runs its start-up work in the same process
 * (a certificate-expiry workflow per property among it), which a bench started at once measures
 * beside the pages. Per topology, client count (1, 8) and neighbour case, the comparison of bench/catalogue-pages.ts:
 * BENCH_ROUNDS (default 10) alternating rounds of BENCH_SECONDS (default 2) seconds per server,
 * each first in every other round; it prints the median of the rounds' ratios (service / bare),
 * the median rounds' pages per second, and each server process's CPU per page (its /proc stat;
 * the clients' CPU is this process's, `process_cpu_ms_per_page`). BENCH_NEIGHBOUR: `both`
 * (default) without, then beside a CPU-bound neighbour process (bench/neighbour.ts); `0` or `1`
 * one of them. BENCH_TOPOLOGIES: `start,api` (default), or one. BENCH_SERVICE_ENV: a JSON object
 * of variables set over the service's own (`{"LOG_LEVEL":"warn"}` weighs the access log).
 * BENCH_LIMIT: records per page (default 100; 1 weighs what each server spends per request
 * apart from the page). BENCH_CPU_PROF=<dir>: the service
 * and bare processes run with `--cpu-prof` into that directory (a profile each, written as they stop).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase } from '../db/scratch.ts';
import { freeLoopbackPort as freePort } from '../infra/ports.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { writeCatalogueRows, type CatalogueRows } from './catalogue-rows.ts';
import { comparePages, type Comparison } from './catalogue-pages.ts';
import { startNeighbour } from './cpu-neighbour.ts';
import { machine } from './machine.ts';
import { settle, startProcess, type BenchProcess } from './pair-processes.ts';
import { postgresCpu } from './postgres-cpu.ts';
import { BENCH_SERVER_SECRET, benchServerUrl, standUp, type BenchStand } from './service-stand.ts';

const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
/** Records per page: 100 as the pair measures; 1 leaves each server's cost per request without the page's. */
const LIMIT = Number(process.env.BENCH_LIMIT ?? 100);
const BASE = '/api/v1/distribution';
const NEIGHBOUR_CASES: Record<string, readonly boolean[]> = { '0': [false], '1': [true], both: [false, true] };
const NEIGHBOUR = NEIGHBOUR_CASES[process.env.BENCH_NEIGHBOUR ?? 'both'] ?? [];
if (NEIGHBOUR.length === 0) throw new Error(`BENCH_NEIGHBOUR is 0, 1 or both, not ${process.env.BENCH_NEIGHBOUR}`);
type Topology = 'start' | 'api';
const TOPOLOGIES = (process.env.BENCH_TOPOLOGIES ?? 'start,api').split(',').map((t) => t.trim()) as Topology[];
if (TOPOLOGIES.some((t) => t !== 'start' && t !== 'api'))
  throw new Error(`BENCH_TOPOLOGIES lists start and/or api, not ${process.env.BENCH_TOPOLOGIES}`);
const CPU_PROF = process.env.BENCH_CPU_PROF;
/** BENCH_SERVICE_ENV: a JSON object of variables over the service's (`{"LOG_LEVEL":"warn"}`), to weigh one part. */
const SERVICE_ENV = JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}') as Record<string, string>;
/** Quiet: under 2.5 % of a core over 2 s (a settled service uses about 0.6 %); waited for 3 minutes at most. */
const SETTLE = { windowMs: 2_000, quietMs: 50, maxMs: 180_000 };
const profiled = (name: string) =>
  CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF)}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
const TOPOLOGY_NAMES: Record<Topology, string> = {
  start: 'npm start (API and worker in one process, sandbox)',
  api: 'API process alone (production)',
};

/** What both servers share: the database, the certificate's files and its PEM, and the rows. */
interface Shared {
  databaseUrl: string;
  tls: { cert: string; certPath: string; keyPath: string };
  rows: CatalogueRows;
  dataDir: string;
  temporalAddress: string;
}

/** The service in `topology`, listening on a free port, once `/health/live` answers. */
async function startService(topology: Topology, shared: Shared): Promise<BenchProcess> {
  const port = await freePort();
  const common = {
    DATABASE_URL: shared.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    METRICS_PORT: String(await freePort()),
    TEMPORAL_METRICS_PORT: String(await freePort()),
    TLS_CERT: shared.tls.certPath,
    TLS_KEY: shared.tls.keyPath,
    DATA_DIR: path.join(shared.dataDir, topology),
    SERVER_SECRET: BENCH_SERVER_SECRET,
    PUBLIC_ORIGIN: `https://localhost:${port}`,
    LOG_LEVEL: 'info',
    OTEL_SDK_DISABLED: 'true',
  };
  const env: Record<string, string | undefined> =
    topology === 'start'
      ? {
          ...common,
          TEMPORAL_ADDRESS: undefined,
          NODE_ENV: undefined,
          SVC_ENVIRONMENT: 'sandbox',
          EMBEDDED_TEMPORAL_PORT: String(await freePort()),
          EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
        }
      : {
          ...common,
          TEMPORAL_ADDRESS: shared.temporalAddress,
          NODE_ENV: 'production',
          SVC_ENVIRONMENT: 'production',
          INTERNAL_PORT: String(await freePort()),
        };
  Object.assign(env, SERVICE_ENV);
  const url = `https://localhost:${port}`;
  return startProcess(
    fileURLToPath(new URL(topology === 'start' ? '../scripts/start.ts' : '../scripts/api.ts', import.meta.url)),
    env,
    { ca: shared.tls.cert, healthUrl: `${url}/health/live`, url },
    { nodeArgs: profiled(`service-${topology}`), logFile: path.join(shared.dataDir, `service-${topology}.log`) },
  );
}

async function startBare(shared: Shared): Promise<BenchProcess> {
  return startProcess(
    fileURLToPath(new URL('./bare-catalogue-server.ts', import.meta.url)),
    {
      BARE_DATABASE_URL: shared.databaseUrl,
      BARE_CHANNEL_ID: shared.rows.channelId,
      TLS_CERT: shared.tls.certPath,
      TLS_KEY: shared.tls.keyPath,
    },
    {
      ca: shared.tls.cert,
      urlFromLine: (line) => (line.startsWith('{"url"') ? (JSON.parse(line) as { url: string }).url : null),
    },
    { nodeArgs: profiled('bare') },
  );
}

/** One topology's comparisons, without and/or beside the neighbour. */
async function measureTopology(
  topology: Topology,
  shared: Shared,
  bare: BenchProcess,
  stand: BenchStand,
): Promise<Record<string, unknown>> {
  const service = await startService(topology, shared);
  // Measured once its start-up work is done: a steady service, as a channel meets it.
  const settled = await settle(service, SETTLE);
  const key = topology === 'start' ? shared.rows.keys.sandbox : shared.rows.keys.production;
  const comparison: Comparison = {
    targets: {
      service: { url: `${service.url}${BASE}/properties`, headers: { authorization: `Bearer ${key}` } },
      bare: { url: `${bare.url}/properties`, headers: {} },
    },
    ca: shared.tls.cert,
    rounds: ROUNDS,
    seconds: SECONDS,
    readPostgresCpu: () => postgresCpu((text) => stand.orm.em.getConnection().execute<{ pid: number }[]>(text)),
    readServerCpu: { service: () => service.cpuMs(), bare: () => bare.cpuMs() },
    limit: LIMIT,
  };
  const cases: Record<string, unknown> = { 'settled before the first round': settled };
  try {
    for (const neighbour of NEIGHBOUR) {
      if (!neighbour) {
        cases.alone = await comparePages(comparison);
        continue;
      }
      const spinning = await startNeighbour();
      let figures: Record<string, unknown> = {};
      try {
        figures = await comparePages(comparison);
      } finally {
        figures['the neighbour process over the comparison'] = await spinning.stop();
      }
      cases['beside a CPU-bound neighbour process'] = figures;
    }
  } finally {
    await service.stop();
  }
  return cases;
}

const scratch = await createScratchDatabase(benchServerUrl(), 'svc_pair');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'catalogue-pair-'));
let stand: BenchStand | undefined;
let bare: BenchProcess | undefined;
try {
  stand = await standUp({ databaseUrl: scratch.url, env: { DATA_DIR: dataDir } });
  const rows = await writeCatalogueRows(stand, PROPERTIES);
  const material = await loadTlsMaterial({ dataDir });
  const shared: Shared = {
    databaseUrl: scratch.url,
    tls: { cert: material.cert, certPath: material.certPath, keyPath: path.join(dataDir, 'tls', 'localhost.key') },
    rows,
    dataDir,
    temporalAddress: stand.temporal.address,
  };
  bare = await startBare(shared);
  const results: Record<string, unknown> = {};
  for (const topology of TOPOLOGIES)
    results[`${TOPOLOGY_NAMES[topology]}: GET /properties?limit=${LIMIT} against bare node:https + pg`] =
      await measureTopology(topology, shared, bare, stand);
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        properties: PROPERTIES,
        rounds: ROUNDS,
        seconds: SECONDS,
        service_env: SERVICE_ENV,
        ...results,
      },
      null,
      2,
    ),
  );
} finally {
  await bare?.stop();
  await stand?.close();
  await scratch.drop();
  await rm(dataDir, { recursive: true, force: true });
}
