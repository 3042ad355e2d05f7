/**
 * `npm run bench:availability`: a channel pulls the whole availability window of every property
 * it sees, page by page, through the real app over TLS with a keep-alive client, from a scratch
 * database of the PostgreSQL at DATABASE_URL (default: 127.0.0.1:5432). The channel runs in a
 * process of its own (`availability-client.ts` pulls and decodes, its thread
 * `availability-check.ts` verifies each page while the next is built), so this process
 * does only the server's work and its CPU is the server's. The whole pull runs twice: following
 * each page's `Link: rel="next"` on two connections (the next page asked for while this one's
 * body arrives), then one page after the other on one connection. Prints each pull's total
 * seconds (until the last page is received and checked), nights per second, the server's time per page apart from the client's (arrival to `res.end`,
 * arrival to the last byte taken by the socket, the server thread's CPU), the client's latency,
 * decode and check times, bytes on the wire, and the machine; then the same for the first
 * BENCH_CODING_PAGES (default 60) pages in each content coding (identity, gzip, br, zstd), with
 * the server process's CPU per page.
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
import os from 'node:os';
import { fork } from 'node:child_process';
import { postgresCpuMs } from './postgres-cpu.ts';
import type { PullReport, PullRequest } from './availability-client.ts';
import pg from 'pg';
import { createChannel } from '../admin/channels.ts';
import { demoCatalogue, DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { issueKey } from '../admin/keys.ts';
import { createApp } from '../api/app.ts';
import { loadConfig } from '../app/config.ts';
import { listen } from '../api/server.ts';
import { openDatabase } from '../db/orm.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { AvailabilityBatch, daysBetween, horizonEnd, MAX_WINDOW_NIGHTS, type AvailabilityUpdate } from '../domain/availability/nights.ts';
import { DistributionInput, LocationInput, OrganizationInput, OwnerInput, PropertyInput } from '../domain/catalogue/source.ts';
import { systemClock } from '../domain/clock.ts';
import { addDays, localDate } from '../domain/time.ts';
import { startDevServer } from '../infra/embedded-temporal.ts';
import { createLogger } from '../infra/logger.ts';
import { connectTemporalClient } from '../infra/temporal.ts';
import { postAvailability } from '../services/availability.ts';
import { putLocation, putOrganization, putOwner, putProperty } from '../services/catalogue.ts';
import { serviceDeps } from '../services/deps.ts';
import { putDistribution } from '../services/distribution.ts';
import { loadSecrets } from '../infra/secrets.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 10_000);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 500);
const CODING_PAGES = Number(process.env.BENCH_CODING_PAGES ?? 60);
/** The channel reads every page's bytes and one in this many also with `JSON.parse` (availability-check.ts). */
const FULL_EVERY = Number(process.env.BENCH_FULL_CHECK_EVERY ?? 10);
const CHANNEL = DEMO_CHANNELS.first;

if (!Number.isInteger(PROPERTIES) || PROPERTIES < 1) throw new Error('BENCH_PROPERTIES is a positive integer');
if (!Number.isInteger(LIMIT) || LIMIT < 1 || LIMIT > 500) throw new Error('BENCH_LIMIT is an integer from 1 to 500');
if (!Number.isInteger(FULL_EVERY) || FULL_EVERY < 1) throw new Error('BENCH_FULL_CHECK_EVERY is a positive integer');

function summary(samples: number[], digits = 2): { median: number; p95: number; p99: number; max: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(digits));
  return { median: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1), n: samples.length };
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
/** A SQL string literal (the values here are ids and plan keys, quoted anyway). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;


/** A year of a guesthouse room's prices: seasons, dearer weekends, a few sold-out or closed nights. */
function yearOfPrices(property: string, today: string, end: string, units: number): AvailabilityUpdate[] {
  const updates: AvailabilityUpdate[] = [];
  for (let date = today, day = 0; date < end; date = addDays(date, 1), day += 1) {
    const month = Number(date.slice(5, 7));
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    const weekend = weekday === 5 || weekday === 6;
    const season = month >= 6 && month <= 8 ? 1.35 : month === 12 || month === 1 ? 1.25 : month === 11 || month === 3 ? 0.85 : 1;
    const double = Math.round((38_000 * season * (weekend ? 1.2 : 1)) / 500) * 500; // RON minor units
    const single = Math.round((double * 0.85) / 500) * 500;
    const rate = (factor: number, key: string) => ({
      rate_plan: key,
      prices_by_occupancy: [{ adults: 1, amount: Math.round(single * factor) }, { adults: 2, amount: Math.round(double * factor) }],
      child_prices: [{ age_from: 0, age_to: 2, amount: 0 }, { age_from: 3, age_to: 11, amount: Math.round(7_500 * factor) }],
      infant_price: 0,
      min_stay: weekend && season > 1 ? 2 : null,
      closed: day % 97 === 13,
    });
    updates.push({
      property,
      from: date,
      to: addDays(date, 1),
      units_available: (day * 7) % 11 === 0 ? 0 : units - ((day * 3) % units),
      min_stay: weekend ? 2 : 1,
      closed_to_arrival: day % 29 === 5,
      rates: [rate(1, 'flex-breakfast'), rate(0.88, 'nonref-breakfast')],
    });
  }
  return updates;
}

const scratch = await createScratchDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'svc_bench');
const temporal = await startDevServer({ searchAttributes: SEARCH_ATTRIBUTES });
const client = await connectTemporalClient(temporal.address, 'default');
const orm = await openDatabase(scratch.url);
const sql = new pg.Client({ connectionString: scratch.url });
await sql.connect();
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', DATA_DIR: os.tmpdir() + '/svc-bench', SERVER_SECRET: 'bench-server-secret-0123456789abcdefghij' });
const secrets = await loadSecrets(config);
const deps = serviceDeps({ orm, temporal: client.client, config, clock: systemClock, log: createLogger('silent'), secrets });
const ctx = deps;

try {
  // --- Setup: one property through the platform's services ----------------------------------
  const setupStart = performance.now();
  const channel = await createChannel(ctx, { name: CHANNEL, rateLimit: 1_000_000 });
  const key = (await issueKey(ctx, { channel: CHANNEL, scopes: 'read:ari' })).key;
  const demo = demoCatalogue(DEMO_CHANNELS, new Date().toISOString().slice(0, 10));
  // The demo's Casa Bran double room: two rate plans (flexible and non-refundable, breakfast).
  const template = demo.find((w) => w.operationId === 'putProperty' && (w.body as { rate_plans: unknown[] }).rate_plans.length === 2)!;
  const templateBody = template.body as { location: string; units: number; rate_plans: { key: string }[] };
  if (templateBody.rate_plans.map((p) => p.key).join() !== 'flex-breakfast,nonref-breakfast') throw new Error('the demo template changed: expected the Casa Bran plans');
  for (const write of demo) {
    if (write.operationId === 'putOrganization') await putOrganization(deps, write.ref, OrganizationInput.parse(write.body));
    if (write.operationId === 'putOwner') await putOwner(deps, write.ref, OwnerInput.parse(write.body));
  }
  const locationWrite = demo.find((w) => w.operationId === 'putLocation' && w.ref === templateBody.location)!;
  const location = LocationInput.parse(locationWrite.body);
  await putLocation(deps, locationWrite.ref, location);
  await putProperty(deps, template.ref, PropertyInput.parse(template.body));
  await putDistribution(deps, template.ref, DistributionInput.parse({ channels: [CHANNEL] }));
  const today = localDate(new Date(), location.timezone);
  const pushed = await postAvailability(deps, AvailabilityBatch.parse({ updates: yearOfPrices(template.ref, today, horizonEnd(today), templateBody.units) }));
  const changed = pushed.results[0]?.changed_nights ?? 0;
  if (changed !== daysBetween(today, horizonEnd(today))) throw new Error(`prices changed ${changed} nights, expected the whole horizon`);
  const templateSeconds = seconds(performance.now() - setupStart);

  // --- Setup: PROPERTIES - 1 clones in SQL --------------------------------------------------
  const cloneStart = performance.now();
  const [templateRow] = (await sql.query<{ id: string }>('select id from property where ref = $1', [template.ref])).rows;
  const t = templateRow!.id;
  // The template's ids on the channel: the property, its photos and its rate plans (internal keys `<uuid>` and `<uuid>/<key>`).
  const ids = (await sql.query<{ kind: string; internal_key: string; external_id: string }>(
    `select kind, internal_key, external_id from channel_id where channel_id = $1 and (internal_key = $2 or internal_key like $2 || '/%') order by kind, internal_key`,
    [channel.id, t],
  )).rows;
  if (ids.filter((id) => id.kind === 'rate_plan').length !== 2) throw new Error('the template has no two rate plan ids on the channel');
  // A clone's id of each: same prefix, then '0' and 25 md5 hex digits (a subset of lowercase Crockford base32): unique per clone and kind.
  const cloneId = (id: (typeof ids)[number]) => {
    const suffix = id.internal_key.slice(t.length);
    return `${literal(id.external_id.slice(0, 4) + '0')} || substr(md5(c.id::text || ${literal(`${id.kind}${suffix}`)}), 1, 25)`;
  };
  const propertyId = ids.find((id) => id.kind === 'property')!;
  const bodyText = ids.reduce((text, id) => `replace(${text}, ${literal(id.external_id)}, ${cloneId(id)})`, 'r.body::text');
  await sql.query('create temp table clone as select gen_random_uuid() as id, i from generate_series(1, $1::int) as i', [PROPERTIES - 1]);
  await sql.query(
    `insert into property (id, ref, location_id, owner_id, content, created_at, updated_at)
     select c.id, p.ref || '-' || c.i, p.location_id, p.owner_id, p.content, p.created_at, p.updated_at from clone c, property p where p.id = $1`,
    [t],
  );
  await sql.query('insert into distribution (property_id, channel_id, created_at) select c.id, d.channel_id, d.created_at from clone c, distribution d where d.property_id = $1', [t]);
  await sql.query(
    `insert into ari_property (property_id, currency, version, updated_at, horizon_end, timezone)
     select c.id, a.currency, a.version, a.updated_at, a.horizon_end, a.timezone from clone c, ari_property a where a.property_id = $1`,
    [t],
  );
  // A clone's nights together, in night order, as a property's first write lays them out (`offset 0` keeps the clone the outer loop).
  await sql.query(
    `insert into ari_night (property_id, night, body)
     select c.id, n.night, n.body from clone c cross join lateral (select night, body from ari_night where property_id = $1 and c.id is not null order by night offset 0) n`,
    [t],
  );
  for (const id of ids) {
    await sql.query(
      `insert into channel_id (channel_id, kind, internal_key, external_id) select $1, $2, c.id::text || $3, ${cloneId(id)} from clone c`,
      [channel.id, id.kind, id.internal_key.slice(t.length)],
    );
  }
  await sql.query(
    `insert into channel_resource (channel_id, kind, internal_id, external_id, status, version, updated_at, body, location_id, owner_id)
     select r.channel_id, r.kind, c.id, ${cloneId(propertyId)}, r.status, r.version, r.updated_at, (${bodyText})::json, r.location_id, r.owner_id
       from clone c, channel_resource r where r.channel_id = $1 and r.kind = 'property' and r.internal_id = $2`,
    [channel.id, t],
  );
  const loadedSeconds = seconds(performance.now() - cloneStart);
  const vacuumStart = performance.now();
  await sql.query('vacuum (analyze) property, distribution, ari_property, ari_night, channel_id, channel_resource');
  const vacuumSeconds = seconds(performance.now() - vacuumStart);
  const [counts] = (await sql.query<{ properties: string; nights: string; mib: string }>(
    `select (select count(*) from channel_resource where channel_id = $1 and kind = 'property' and status in ('active', 'inactive')) as properties,
            (select count(*) from ari_night) as nights, (select pg_total_relation_size('ari_night') / 1048576) as mib`,
    [channel.id],
  )).rows;
  if (Number(counts!.properties) !== PROPERTIES) throw new Error(`the channel sees ${counts!.properties} properties, expected ${PROPERTIES}`);
  const setupSeconds = seconds(performance.now() - setupStart);

  // --- The pull -----------------------------------------------------------------------------
  const tls = await loadTlsMaterial({ dataDir: config.dataDir });
  const app = createApp(deps, { publicOrigin: 'https://bench.test' });
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
  const server = await listen(timed, { host: '127.0.0.1', port: 0, plainPort: null, tls, publicOrigin: 'https://bench.test' });

  // Every property's window: its today up to `horizon_end`, at most MAX_WINDOW_NIGHTS (the default `to`).
  const windowNights = Math.min(daysBetween(today, horizonEnd(today)), MAX_WINDOW_NIGHTS);
  const expected = PROPERTIES * windowNights;

  const postgresCpu = () => postgresCpuMs(async (text) => (await sql.query<{ pid: number }>(text)).rows);

  /** One pull by the channel's threads in `coding`: the whole of it, or its first `maxPages` pages. */
  async function pull(coding: PullRequest['coding'], maxPages: number | null, mode: PullRequest['mode'] = 'linked') {
    timing.endMs = [];
    timing.finishMs = [];
    timing.threadCpuMs = [];
    const job: PullRequest = { url: server.url, key, ca: tls.cert.toString(), limit: LIMIT, coding, maxPages, mode, fullEvery: FULL_EVERY, today };
    const processCpu = process.cpuUsage();
    const postgresBefore = await postgresCpu();
    const channel = fork(new URL('./availability-client.ts', import.meta.url), { serialization: 'advanced', stdio: 'inherit' });
    const report = await new Promise<PullReport>((resolve, reject) => {
      channel.on('message', (message: { error?: string }) => (message.error ? reject(new Error(message.error)) : resolve(message as PullReport)));
      channel.on('error', reject);
      channel.on('exit', (code) => (code ? reject(new Error(`the channel process exited with ${code}`)) : undefined));
      channel.send(job);
    });
    // This process is the server's alone: its thread, the compressors in libuv's pool and the
    // garbage collector (and the channel's warm-up page of one property).
    const cpu = process.cpuUsage(processCpu);
    const serverCpuMs = (cpu.user + cpu.system) / 1000;
    const postgresAfter = await postgresCpu();
    const postgresMs = postgresBefore === null || postgresAfter === null ? null : postgresAfter - postgresBefore;
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
        'server process CPU ms per page (thread, compressors, garbage collector)': Number((serverCpuMs / report.pages).toFixed(1)),
        'PostgreSQL CPU ms per page (its backends for this database)': postgresMs === null ? 'unknown' : Number((postgresMs / report.pages).toFixed(1)),
        'client ms per page, request sent → last byte received (server + TLS + transfer)': summary(report.latencyMs),
        'client ms per page, decode': summary(report.decodeMs),
        'client ms per page, byte scan of the page (own thread, overlaps the next page)': summary(report.checked.checkMs),
        [`client ms per page, JSON.parse + field check (one page in ${FULL_EVERY}, besides the scan)`]: summary(report.checked.fullMs),
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
      throw new Error(`received ${checked.received} nights of ${checked.properties} properties, expected ${expected} of ${PROPERTIES}` + (short.length ? `; ${short.length} properties short` : ''));
    }
    if (checked.planIds !== 2 * PROPERTIES) throw new Error(`${checked.planIds} distinct rate plan ids, expected ${2 * PROPERTIES}`);
    return checked;
  };
  // Untimed: the first pages warm the server's code and caches, so both timed pulls start alike.
  await pull('identity', Math.min(40, Math.ceil(expected / 5000)), 'sequential');
  const full = await pull('identity', null, 'linked');
  const checked = verify(full);
  const received = checked.received;
  const sequential = await pull('identity', null, 'sequential');
  verify(sequential);
  const samplePages = Math.min(CODING_PAGES, full.report.pages);
  const codings = [];
  for (const coding of ['identity', 'gzip', 'br', 'zstd'] as const) codings.push((await pull(coding, samplePages)).figures);
  await server.close();

  const cpus = os.cpus();
  const postgres = (await sql.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  console.log(JSON.stringify({
    machine: { cpu: cpus[0]?.model, cores: cpus.length, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version, postgres, platform: `${os.type()} ${os.release()}`, load_average_at_end: os.loadavg().map((l) => Number(l.toFixed(2))) },
    properties: PROPERTIES,
    limit: LIMIT,
    nights_per_property: windowNights,
    setup_seconds: { total: setupSeconds, template_through_operations: templateSeconds, clone_sql: loadedSeconds, vacuum_analyze: vacuumSeconds, stored_nights: Number(counts!.nights), ari_night_mib: Number(counts!.mib) },
    // The whole pull, identity, until the last page was received and checked: following the
    // Link header on two connections, then one page after the other on one.
    pull: { ...full.figures, nights: received, nights_per_page: summary(checked.pageNights, 0) },
    pull_sequential: sequential.figures,
    [`by content coding, the first ${samplePages} pages each`]: codings,
    rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20),
  }, null, 2));
} finally {
  await sql.end();
  await orm.close(true);
  await client.close();
  await temporal.stop();
  await scratch.drop();
}
