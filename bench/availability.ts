/**
 * `npm run bench:availability`: a channel pulls the whole availability window of every property
 * it sees, page by page, through the real app over TLS with a keep-alive client, from a scratch
 * database of the PostgreSQL at DATABASE_URL (default: 127.0.0.1:5432). The channel runs in a
 * process of its own (`availability-client.ts` pulls and decodes, its thread
 * `availability-check.ts` verifies each page while the next is built), so this process
 * does only the server's work and its CPU is the server's. The whole pull runs three times:
 * following each page's `Link: rel="next"` on two connections (the next page asked for while
 * this one's body arrives), then one page after the other on one connection, then linked again
 * with zstd. Prints each pull's total seconds (until the last page is received and checked),
 * nights per second, the server's time per page apart from the client's (arrival to `res.end`,
 * arrival to the last byte taken by the socket, the server thread's CPU), the server process's
 * and PostgreSQL's CPU per page, the client's latency, decode and check times, bytes on the
 * wire, and the machine; then the same for the first BENCH_CODING_PAGES (default 60) pages in
 * each content coding (identity, gzip, br, zstd).
 *
 * Last, the floor: the identity pull, linked, from a bare `node:https` + `pg` server in this
 * process answering the same pages from the same tables with the obvious queries
 * (bench/bare-availability.ts), and the service's seconds and CPU per page over the bare server's.
 *
 * BENCH_PROPERTIES (default 10000) properties of two rate plans each with priced nights over the
 * whole horizon; BENCH_LIMIT (default 500) properties per page, so pages end at 5,000 nights;
 * BENCH_FULL_CHECK_EVERY (default 10): the channel scans every page's bytes and also parses one
 * page in this many with `JSON.parse`, the two readings compared (availability-check.ts).
 * Setup is fast: one property is written through the platform's services (catalogue, channel
 * view, prices for every night), then cloned in SQL with fresh ids of the channel's own (so the
 * clones' nights repeat each other's prices: compression ratios here are better than a real
 * catalogue's).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fork } from 'node:child_process';
import { postgresCpu, postgresCpuBetween } from './postgres-cpu.ts';
import type { PullReport, PullRequest } from './availability-client.ts';
import { seconds, setUpPull } from './availability-setup.ts';
import pg from 'pg';
import { DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { createApp } from '../api/app.ts';
import { daysBetween, horizonEnd, MAX_WINDOW_NIGHTS } from '../domain/availability/nights.ts';
import { machine } from './machine.ts';
import { BENCH_ORIGIN, serveOverTls, standUp } from './service-stand.ts';
import { startBareAvailability } from './bare-availability.ts';

const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 10_000);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 500);
const CODING_PAGES = Number(process.env.BENCH_CODING_PAGES ?? 60);
/** The channel reads every page's bytes and one in this many also with `JSON.parse` (availability-check.ts). */
const FULL_EVERY = Number(process.env.BENCH_FULL_CHECK_EVERY ?? 10);
const CHANNEL = DEMO_CHANNELS.first;
const PROCESS_CPU = 'server process CPU ms per page (thread, compressors, garbage collector)';
const POSTGRES_CPU = 'PostgreSQL CPU ms per page (its backends for this database)';

if (!Number.isInteger(PROPERTIES) || PROPERTIES < 1) throw new Error('BENCH_PROPERTIES is a positive integer');
if (!Number.isInteger(LIMIT) || LIMIT < 1 || LIMIT > 500) throw new Error('BENCH_LIMIT is an integer from 1 to 500');
if (!Number.isInteger(FULL_EVERY) || FULL_EVERY < 1) throw new Error('BENCH_FULL_CHECK_EVERY is a positive integer');

function summary(samples: number[], digits = 2): { median: number; p95: number; p99: number; max: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(digits));
  return { median: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1), n: samples.length };
}

const stand = await standUp();
const { deps } = stand;
const sql = new pg.Client({ connectionString: stand.url });
await sql.connect();

try {
  const { key, counts, today, templateSeconds, loadedSeconds, vacuumSeconds, setupSeconds } = await setUpPull(
    deps,
    sql,
    CHANNEL,
    PROPERTIES,
  );

  // --- The pull -----------------------------------------------------------------------------
  const app = createApp(deps, { publicOrigin: BENCH_ORIGIN });
  // The server's own time per page, measured in its thread: from the request's arrival to the
  // body handed to Node (`res.end`, after compression when compressed) and to its last byte
  // taken by the socket (`finish`, which also waits for the client to read), and the server
  // thread's CPU over that span. Only the pages (`limit=LIMIT`) are counted.
  const timing = { endMs: [] as number[], finishMs: [] as number[], threadCpuMs: [] as number[] };
  const pagePath = `/availability?limit=${LIMIT}`;
  const timed = ((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.includes(pagePath)) {
      const arrived = performance.now();
      const cpu = process.threadCpuUsage();
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        timing.endMs.push(performance.now() - arrived);
        return end(...args);
      }) as typeof res.end;
      res.on('finish', () => {
        timing.finishMs.push(performance.now() - arrived);
        const used = process.threadCpuUsage(cpu);
        timing.threadCpuMs.push((used.user + used.system) / 1000);
      });
    }
    app(req as never, res as never);
  }) as unknown as typeof app;
  const server = await serveOverTls(stand, timed);
  const { tls } = server;

  // Every property's window: its today up to `horizon_end`, at most MAX_WINDOW_NIGHTS (the default `to`).
  const windowNights = Math.min(daysBetween(today, horizonEnd(today)), MAX_WINDOW_NIGHTS);
  const expected = PROPERTIES * windowNights;

  const readPostgresCpu = () => postgresCpu(async (text) => (await sql.query<{ pid: number }>(text)).rows);

  /** One pull by the channel's threads in `coding`: the whole of it, or its first `maxPages` pages. */
  async function pull(
    coding: PullRequest['coding'],
    maxPages: number | null,
    mode: PullRequest['mode'] = 'linked',
    url = server.url,
  ) {
    timing.endMs = [];
    timing.finishMs = [];
    timing.threadCpuMs = [];
    const job: PullRequest = {
      url,
      key,
      ca: tls.cert.toString(),
      limit: LIMIT,
      coding,
      maxPages,
      mode,
      fullEvery: FULL_EVERY,
      today,
    };
    const processCpu = process.cpuUsage();
    const postgresBefore = await readPostgresCpu();
    const channel = fork(new URL('./availability-client.ts', import.meta.url), {
      serialization: 'advanced',
      stdio: 'inherit',
    });
    const report = await new Promise<PullReport>((resolve, reject) => {
      channel.on('message', (message: { error?: string }) =>
        message.error ? reject(new Error(message.error)) : resolve(message as PullReport),
      );
      channel.on('error', reject);
      channel.on('exit', (code) => (code ? reject(new Error(`the channel process exited with ${code}`)) : undefined));
      channel.send(job);
    });
    // This process is the server's alone: its thread, the compressors in libuv's pool and the
    // garbage collector (and the channel's warm-up page of one property).
    const cpu = process.cpuUsage(processCpu);
    const serverCpuMs = (cpu.user + cpu.system) / 1000;
    const postgresAfter = await readPostgresCpu();
    const postgresMs = postgresCpuBetween(postgresBefore, postgresAfter);
    const wire = summary(report.wireBytes, 0);
    return {
      report,
      figures: {
        coding,
        mode,
        pages: report.pages,
        seconds: seconds(report.seconds * 1000),
        nights_per_second: Math.round(report.checked.received / report.seconds),
        'server ms per page, arrival → res.end (body produced, compressed)': summary(timing.endMs),
        'server ms per page, arrival → last byte taken by the socket': summary(timing.finishMs),
        'server thread CPU ms per page': summary(timing.threadCpuMs),
        [PROCESS_CPU]: Number((serverCpuMs / report.pages).toFixed(1)),
        [POSTGRES_CPU]: postgresMs === null ? ('unknown' as const) : Number((postgresMs / report.pages).toFixed(1)),
        'client ms per page, request sent → last byte received (server + TLS + transfer)': summary(report.latencyMs),
        'client ms per page, decode': summary(report.decodeMs),
        'client ms per page, byte scan of the page (own thread, overlaps the next page)': summary(
          report.checked.checkMs,
        ),
        [`client ms per page, JSON.parse + field check (one page in ${FULL_EVERY}, besides the scan)`]: summary(
          report.checked.fullMs,
        ),
        'client CPU ms per page': Number((report.clientCpuMs / report.pages).toFixed(1)),
        bytes_on_the_wire_per_page: { median: wire.median, p95: wire.p95, max: wire.max },
        total_mib_on_the_wire: Math.round(report.wireBytes.reduce((a, b) => a + b, 0) / 2 ** 20),
      },
    };
  }

  /** Every property's every night once, with its two plans' ids: else the run stops here. */
  const verify = ({ report: { checked } }: Awaited<ReturnType<typeof pull>>) => {
    const short = checked.nightsPerProperty.filter((nights) => nights !== windowNights);
    if (checked.received !== expected || checked.properties !== PROPERTIES || short.length > 0) {
      throw new Error(
        `received ${checked.received} nights of ${checked.properties} properties, expected ${expected} of ${PROPERTIES}` +
          (short.length ? `; ${short.length} properties short` : ''),
      );
    }
    if (checked.planIds !== 2 * PROPERTIES)
      throw new Error(`${checked.planIds} distinct rate plan ids, expected ${2 * PROPERTIES}`);
    return checked;
  };
  // Untimed: the first pages warm the server's code and caches, so both timed pulls start alike.
  await pull('identity', Math.min(40, Math.ceil(expected / 5000)), 'sequential');
  const full = await pull('identity', null, 'linked');
  const checked = verify(full);
  const received = checked.received;
  const sequential = await pull('identity', null, 'sequential');
  verify(sequential);
  const zstd = await pull('zstd', null, 'linked');
  verify(zstd);
  const samplePages = Math.min(CODING_PAGES, full.report.pages);
  const codings = [];
  for (const coding of ['identity', 'gzip', 'br', 'zstd'] as const)
    codings.push((await pull(coding, samplePages)).figures);
  await server.close();

  // The floor: the same pull, linked, from a bare node:https + pg server in this process.
  const [channel] = (await sql.query<{ id: string }>('select id from channel where name = $1', [CHANNEL])).rows;
  const bare = await startBareAvailability(stand.url, tls, channel!.id, today);
  await pull('identity', Math.min(40, Math.ceil(expected / 5000)), 'sequential', bare.url);
  const floor = await pull('identity', null, 'linked', bare.url);
  verify(floor);
  if (floor.report.pages !== full.report.pages)
    throw new Error(`the bare server served ${floor.report.pages} pages, the service ${full.report.pages}`);
  await bare.close();
  const ratio = (service: number | string, base: number | string) =>
    typeof service === 'number' && typeof base === 'number' ? Number((service / base).toFixed(2)) : 'unknown';
  const perPage = (figures: typeof full.figures) => ({
    seconds: figures.seconds,
    process_cpu_ms_per_page: figures[PROCESS_CPU],
    postgres_cpu_ms_per_page: figures[POSTGRES_CPU],
  });

  const postgres = (await sql.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  console.log(
    JSON.stringify(
      {
        machine: machine({ postgres }),
        properties: PROPERTIES,
        limit: LIMIT,
        nights_per_property: windowNights,
        setup_seconds: {
          total: setupSeconds,
          template_through_operations: templateSeconds,
          clone_sql: loadedSeconds,
          vacuum_analyze: vacuumSeconds,
          stored_nights: Number(counts.nights),
          ari_night_mib: Number(counts.mib),
        },
        // The whole pull, identity, until the last page was received and checked: following the
        // Link header on two connections, then one page after the other on one.
        pull: { ...full.figures, nights: received, nights_per_page: summary(checked.pageNights, 0) },
        pull_sequential: sequential.figures,
        pull_zstd: zstd.figures,
        // The identity pull, linked, from the bare server, and the service's figures over the bare
        // server's: seconds for the whole pull, and CPU per page of each process.
        'bare node:https + pg server, identity, linked': perPage(floor.figures),
        'service / bare': {
          seconds: ratio(full.figures.seconds, floor.figures.seconds),
          process_cpu_per_page: ratio(full.figures[PROCESS_CPU], floor.figures[PROCESS_CPU]),
          postgres_cpu_per_page: ratio(full.figures[POSTGRES_CPU], floor.figures[POSTGRES_CPU]),
        },
        [`by content coding, the first ${samplePages} pages each`]: codings,
        rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20),
      },
      null,
      2,
    ),
  );
} finally {
  await sql.end();
  await stand.close();
}
