/**
 * `npm run bench:catalogue`: cost of the catalogue's writes (a platform PUT re-projecting two
 * channels' views) and reads (list pages, one property, the event log, an incremental sync) on a
 * scratch database of the PostgreSQL at DATABASE_URL (default: 127.0.0.1:5432), through the real
 * app over TLS with a keep-alive client. Prints medians and 95th percentiles in milliseconds,
 * and the machine.
 *
 * BENCH_PROPERTIES (default 1000) properties, five per location, each distributed to two channels.
 *
 * Then the list's pages per second at 1 and 8 clients, against a bare `node:https` + `pg` server
 * (bench/bare-catalogue.ts) running the same query with the same certificate, in the same run and
 * interleaved, so a machine loaded by others weighs on both: BENCH_ROUNDS (default 10) rounds of
 * BENCH_SECONDS (default 2) seconds per server and client count, short so that both see the same
 * load. The ratio is service / bare: pooled over the rounds, and the median of the rounds' ratios.
 *
 * BENCH_NEIGHBOUR: unset or `0`, the comparison runs as it is; `1`, with a CPU-bound neighbour
 * (bench/neighbour.ts, a child process spinning one core flat out from right before the
 * comparison's first round to right after its last), reported under the key ending `with a
 * CPU-bound neighbour process`, with the neighbour's own CPU and cores kept busy; `both`, first
 * without, then with it, under the two keys.
 */
import https from 'node:https';
import { createChannel } from '../admin/channels.ts';
import { issueKey } from '../admin/keys.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
} from '../domain/catalogue/source.ts';
import { putLocation, putOrganization, putOwner, putProperty } from '../services/catalogue.ts';
import { putDistribution } from '../services/distribution.ts';
import { demoCatalogue, DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { startBareCatalogue } from './bare-catalogue.ts';
import { comparePages, summary, type Comparison } from './catalogue-pages.ts';
import { startNeighbour } from './cpu-neighbour.ts';
import { postgresCpu } from './postgres-cpu.ts';
import { machine } from './machine.ts';
import { serveOverTls, standUp } from './service-stand.ts';

const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const BASE = '/api/v1/distribution';
/** Properties changed, each followed by an incremental sync. */
const CHANGES = 50;
const PAGES_PER_SECOND = 'GET /properties?limit=100 pages per second, service against bare node:https + pg';
const WITH_NEIGHBOUR = ', with a CPU-bound neighbour process';
/** BENCH_NEIGHBOUR's values: whether the comparison runs without, with, or without then with the neighbour. */
const NEIGHBOUR_CASES: Record<string, readonly boolean[]> = {
  '': [false],
  '0': [false],
  '1': [true],
  both: [false, true],
};
const NEIGHBOUR = NEIGHBOUR_CASES[process.env.BENCH_NEIGHBOUR ?? ''];
if (!NEIGHBOUR) throw new Error(`BENCH_NEIGHBOUR is 0, 1 or both, not ${process.env.BENCH_NEIGHBOUR}`);

/** The comparison of pages per second, with a CPU-bound neighbour process beside it when `neighbour`. */
async function pagesPerSecond(comparison: Comparison, neighbour: boolean): Promise<Record<string, unknown>> {
  if (!neighbour) return comparePages(comparison);
  const spinning = await startNeighbour();
  let throughput: Record<string, unknown> = {};
  try {
    throughput = await comparePages(comparison);
  } finally {
    throughput['the neighbour process over the comparison'] = await spinning.stop();
  }
  return throughput;
}

async function timed<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await work();
  samples.push(performance.now() - start);
  return result;
}

const stand = await standUp();
const { orm, deps } = stand;
const ctx = deps;

try {
  for (const name of [DEMO_CHANNELS.first, DEMO_CHANNELS.second])
    await createChannel(ctx, { name, rateLimit: 1_000_000 });
  const key = (await issueKey(ctx, { channel: DEMO_CHANNELS.first, scopes: 'read:catalog' })).key;

  // The demo's shapes, multiplied: each demo property becomes many, five per location.
  const demo = demoCatalogue(DEMO_CHANNELS, new Date().toISOString().slice(0, 10));
  // The platform's writes, validated as the write interface validates them, through its services.
  const put = {
    organization: (ref: string, body: unknown) => putOrganization(deps, ref, OrganizationInput.parse(body)),
    owner: (ref: string, body: unknown) => putOwner(deps, ref, OwnerInput.parse(body)),
    location: (ref: string, body: unknown) => putLocation(deps, ref, LocationInput.parse(body)),
    property: (ref: string, body: unknown) => putProperty(deps, ref, PropertyInput.parse(body)),
    distribution: (ref: string, body: unknown) => putDistribution(deps, ref, DistributionInput.parse(body)),
  };
  for (const write of demo) {
    if (write.operationId === 'putOrganization') await put.organization(write.ref, write.body);
    if (write.operationId === 'putOwner') await put.owner(write.ref, write.body);
  }
  const locations = demo.filter((w) => w.operationId === 'putLocation');
  const properties = demo.filter((w) => w.operationId === 'putProperty');

  const writeSamples: number[] = [];
  const distributeSamples: number[] = [];
  const created = new Set<string>();
  for (let i = 0; i < PROPERTIES; i += 1) {
    const template = properties[i % properties.length]!;
    const body = template.body as { location: string };
    const locationTemplate = locations.find((l) => l.ref === body.location)!;
    const locationRef = `${body.location}-${Math.floor(i / 5)}`;
    if (!created.has(locationRef)) await put.location(locationRef, locationTemplate.body);
    created.add(locationRef);
    const ref = `bench-${i}`;
    await timed(writeSamples, () => put.property(ref, { ...body, location: locationRef }));
    await timed(distributeSamples, () =>
      put.distribution(ref, { channels: [DEMO_CHANNELS.first, DEMO_CHANNELS.second] }),
    );
  }

  const server = await serveOverTls(stand);
  const { tls } = server;
  const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 1 });
  interface Page {
    data: { id: string }[];
    next_cursor: string | null;
  }
  const get = (path: string): Promise<{ status: number; json: Page }> =>
    new Promise((resolve, reject) => {
      https
        .get(new URL(`${BASE}${path}`, server.url), { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Page }),
          );
        })
        .on('error', reject);
    });

  const pageSamples: number[] = [];
  const propertySamples: number[] = [];
  const eventSamples: number[] = [];
  const syncSamples: number[] = [];
  const changeSamples: number[] = [];
  let ids: string[] = [];
  for (let round = 0; round < 5; round += 1) {
    ids = [];
    let cursor: string | null = null;
    do {
      const res = await timed(pageSamples, () =>
        get(`/properties?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
      );
      if (res.status !== 200) throw new Error(`list answered ${res.status}`);
      ids.push(...res.json.data.map((p) => p.id));
      cursor = res.json.next_cursor;
    } while (cursor);
  }
  for (const id of ids.slice(0, 200)) await timed(propertySamples, () => get(`/properties/${id}`));
  let eventCursor: string | null = null;
  for (let i = 0; i < 20; i += 1) {
    const res = await timed(eventSamples, () =>
      get(`/events?limit=500${eventCursor ? `&cursor=${encodeURIComponent(eventCursor)}` : ''}`),
    );
    eventCursor = res.json.next_cursor;
  }
  // Changes of the first properties, no more than there are: one past them names a location never written.
  for (let i = 0; i < Math.min(CHANGES, PROPERTIES); i += 1) {
    const since = new Date().toISOString();
    const template = properties[i % properties.length]!.body as { location: string };
    await timed(changeSamples, () =>
      put.property(`bench-${i}`, { ...template, location: `${template.location}-${Math.floor(i / 5)}`, units: 50 + i }),
    );
    await timed(syncSamples, () => get(`/properties?updated_since=${since}`));
  }
  agent.destroy();

  // Pages per second against the bare floor, interleaved round by round.
  const [channel] = await orm.em
    .getConnection()
    .execute<{ id: string }[]>('select id from channel where name = ?', [DEMO_CHANNELS.first]);
  const bare = await startBareCatalogue(stand.url, tls, channel!.id);
  const targets = {
    service: { url: `${server.url}${BASE}/properties`, headers: { authorization: `Bearer ${key}` } },
    bare: { url: `${bare.url}/properties`, headers: {} },
  };
  const comparison: Comparison = {
    targets,
    ca: tls.cert,
    rounds: ROUNDS,
    seconds: SECONDS,
    readPostgresCpu: () => postgresCpu((text) => orm.em.getConnection().execute<{ pid: number }[]>(text)),
  };
  const throughput: Record<string, unknown> = {};
  for (const neighbour of NEIGHBOUR)
    throughput[`${PAGES_PER_SECOND}${neighbour ? WITH_NEIGHBOUR : ''}`] = await pagesPerSecond(comparison, neighbour);
  await bare.close();
  await server.close();

  console.log(
    JSON.stringify(
      {
        machine: machine(),
        properties: PROPERTIES,
        listed: ids.length,
        ms: {
          'PUT property, new (no channel yet)': summary(writeSamples),
          'PUT property, changed (re-projects 2 channels)': summary(changeSamples),
          'PUT distribution (2 channels)': summary(distributeSamples),
          'GET /properties?limit=100 page': summary(pageSamples),
          'GET /properties/{id}': summary(propertySamples),
          'GET /events?limit=500 page': summary(eventSamples),
          'GET /properties?updated_since (1 change)': summary(syncSamples),
        },
        ...throughput,
        rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20),
      },
      null,
      2,
    ),
  );
} finally {
  await stand.close();
}
