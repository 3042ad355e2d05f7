/**
 * `npm run bench:listings`: what channels' reports cost the service, at the service layer (the
 * HTTP envelope is measured by the other benchmarks), on a scratch database of the PostgreSQL at
 * DATABASE_URL with the demo catalogue and its reports (`seed demo`). Prints medians and p99 in
 * milliseconds of: a listing report that changes the state (a history row) and one that repeats
 * it, a statistics report of every (property, day) of a channel's window (replacing the days),
 * the platform's two reads and the host dashboard's two pages' models; then the host overview
 * page served over TLS for an organization of BENCH_ORGANIZATION_PROPERTIES (default 1000)
 * properties, unfiltered and filtered; and the machine.
 *
 * BENCH_SAMPLES (default 200) timed calls of each (BENCH_RUNS is bench/runs.ts's: how many times
 * the whole bench runs).
 */
import { seedDemo } from '../admin/seed.ts';
import { DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { channelIdsByName } from '../db/catalogue/distribution.ts';
import { propertiesSeenBy } from '../db/listings.ts';
import { addDays, localDate } from '../domain/time.ts';
import { listingsOverview, propertyDashboard } from '../services/host-dashboard.ts';
import { overviewOfLargeOrganization } from './listings-overview.ts';
import { propertyListings, propertyStats } from '../services/listing-reads.ts';
import { postListingStats, putListingReport } from '../services/listings.ts';
import { machine } from './machine.ts';
import { standUp } from './service-stand.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
if (!Number.isInteger(SAMPLES) || SAMPLES < 1) throw new Error('BENCH_SAMPLES is a positive integer');
const ORGANIZATION_PROPERTIES = Number(process.env.BENCH_ORGANIZATION_PROPERTIES ?? 1000);

function summary(samples: number[]): { median: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(2));
  return { median: at(0.5), p99: at(0.99), n: samples.length };
}

async function timed(
  runs: number,
  work: (i: number) => Promise<unknown>,
): Promise<{ median: number; p99: number; n: number }> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await work(i);
    samples.push(performance.now() - start);
  }
  return summary(samples);
}

const stand = await standUp();
const { orm, config, deps } = stand;
try {
  await seedDemo(deps);
  const channelId = (await channelIdsByName(orm.em.fork(), [DEMO_CHANNELS.first])).get(DEMO_CHANNELS.first)!;
  const properties = await propertiesSeenBy(orm.em.fork(), channelId);
  const property = properties[0]!;
  const today = localDate(new Date(), 'Europe/Bucharest');
  // Every day of the window the two zones share, for every property the channel sees.
  const window = properties.flatMap((p) =>
    Array.from({ length: 35 }, (_, d) => ({
      property_id: p.externalId,
      date: addDays(today, -d - 1),
      views: 100 + d,
      clicks_to_booking: d % 9,
    })),
  );
  const states = [
    {
      status: 'published',
      public_url: 'https://demo-travel.example/stay/1',
      promoted: false,
      promoted_until: null,
      rejection: null,
    },
    { status: 'pending_review', public_url: null, promoted: false, promoted_until: null, rejection: null },
  ];
  const org = (
    await orm.em.fork().execute<{ id: string }[]>("select id from organization where ref = 'demo-org-carpathia'")
  )[0]!.id;
  const from = addDays(today, -30);
  const result = {
    machine: machine(),
    samples: SAMPLES,
    'PUT listing, state changes (report + history row), ms': await timed(SAMPLES, (i) =>
      putListingReport(deps, channelId, property.externalId, states[i % 2]!),
    ),
    'PUT listing, same state again (received_at only), ms': await timed(SAMPLES, () =>
      putListingReport(deps, channelId, property.externalId, states[1]!),
    ),
    [`POST listing-stats, ${window.length} days replaced, ms`]: await timed(Math.max(1, Math.floor(SAMPLES / 4)), () =>
      postListingStats(deps, channelId, window),
    ),
    'platform read: listings with history, ms': await timed(SAMPLES, () => propertyListings(deps, property.ref)),
    'platform read: stats, 31 days, ms': await timed(SAMPLES, () =>
      propertyStats(deps, property.ref, from, addDays(today, 1)),
    ),
    'dashboard model: overview, ms': await timed(SAMPLES, () => listingsOverview(deps, org)),
    'dashboard model: property page, ms': await timed(SAMPLES, () => propertyDashboard(deps, org, property.ref)),
    ...(await overviewOfLargeOrganization(deps, config.dataDir, ORGANIZATION_PROPERTIES, SAMPLES, timed)),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await stand.close();
}
