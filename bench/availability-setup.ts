/**
 * The data `npm run bench:availability` pulls: one property written through the platform's
 * services (catalogue, channel view, prices for every night), then cloned in SQL with fresh ids of
 * the channel's own (bench/property-clones.ts), so the clones' nights repeat each other's prices.
 */
import type pg from 'pg';
import { createChannel } from '../admin/channels.ts';
import { demoCatalogue, DEMO_CHANNELS } from '../admin/demo-catalogue.ts';
import { issueKey } from '../admin/keys.ts';
import { AvailabilityBatch, daysBetween, horizonEnd, type AvailabilityUpdate } from '../domain/availability/nights.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
} from '../domain/catalogue/source.ts';
import { addDays, localDate } from '../domain/time.ts';
import { postAvailability } from '../services/availability.ts';
import { putLocation, putOrganization, putOwner, putProperty } from '../services/catalogue.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { putDistribution } from '../services/distribution.ts';
import { cloneProperty } from './property-clones.ts';

/** Milliseconds as seconds to two decimals, as the bench reports them. */
export const seconds = (ms: number) => Number((ms / 1000).toFixed(2));

/** A year of a guesthouse room's prices: seasons, dearer weekends, a few sold-out or closed nights. */
export function yearOfPrices(property: string, today: string, end: string, units: number): AvailabilityUpdate[] {
  const updates: AvailabilityUpdate[] = [];
  for (let date = today, day = 0; date < end; date = addDays(date, 1), day += 1) {
    const month = Number(date.slice(5, 7));
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    const weekend = weekday === 5 || weekday === 6;
    const season =
      month >= 6 && month <= 8 ? 1.35 : month === 12 || month === 1 ? 1.25 : month === 11 || month === 3 ? 0.85 : 1;
    const double = Math.round((38_000 * season * (weekend ? 1.2 : 1)) / 500) * 500; // RON minor units
    const single = Math.round((double * 0.85) / 500) * 500;
    const rate = (factor: number, key: string) => ({
      rate_plan: key,
      prices_by_occupancy: [
        { adults: 1, amount: Math.round(single * factor) },
        { adults: 2, amount: Math.round(double * factor) },
      ],
      child_prices: [
        { age_from: 0, age_to: 2, amount: 0 },
        { age_from: 3, age_to: 11, amount: Math.round(7_500 * factor) },
      ],
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

/** Writes the template property for `channelName`, clones it to `properties` in all, and says how long each part took. */
export async function setUpPull(deps: ServiceDeps, sql: pg.Client, channelName: string, properties: number) {
  // --- Setup: one property through the platform's services ----------------------------------
  const setupStart = performance.now();
  const channel = await createChannel(deps, { name: channelName, rateLimit: 1_000_000 });
  const key = (await issueKey(deps, { channel: channelName, scopes: 'read:ari' })).key;
  const demo = demoCatalogue(DEMO_CHANNELS, new Date().toISOString().slice(0, 10));
  // The demo's Casa Bran double room: two rate plans (flexible and non-refundable, breakfast).
  const template = demo.find(
    (w) => w.operationId === 'putProperty' && (w.body as { rate_plans: unknown[] }).rate_plans.length === 2,
  )!;
  const templateBody = template.body as { location: string; units: number; rate_plans: { key: string }[] };
  if (templateBody.rate_plans.map((p) => p.key).join() !== 'flex-breakfast,nonref-breakfast')
    throw new Error('the demo template changed: expected the Casa Bran plans');
  for (const write of demo) {
    if (write.operationId === 'putOrganization')
      await putOrganization(deps, write.ref, OrganizationInput.parse(write.body));
    if (write.operationId === 'putOwner') await putOwner(deps, write.ref, OwnerInput.parse(write.body));
  }
  const locationWrite = demo.find((w) => w.operationId === 'putLocation' && w.ref === templateBody.location)!;
  const location = LocationInput.parse(locationWrite.body);
  await putLocation(deps, locationWrite.ref, location);
  await putProperty(deps, template.ref, PropertyInput.parse(template.body));
  await putDistribution(deps, template.ref, DistributionInput.parse({ channels: [channelName] }));
  const today = localDate(new Date(), location.timezone);
  const pushed = await postAvailability(
    deps,
    AvailabilityBatch.parse({ updates: yearOfPrices(template.ref, today, horizonEnd(today), templateBody.units) }),
  );
  const changed = pushed.results[0]?.changed_nights ?? 0;
  if (changed !== daysBetween(today, horizonEnd(today)))
    throw new Error(`prices changed ${changed} nights, expected the whole horizon`);
  const templateSeconds = seconds(performance.now() - setupStart);

  // --- Setup: properties - 1 clones in SQL --------------------------------------------------
  const cloneStart = performance.now();
  const [templateRow] = (await sql.query<{ id: string }>('select id from property where ref = $1', [template.ref]))
    .rows;
  await cloneProperty(deps.orm.em.fork(), { id: templateRow!.id, channelId: channel.id }, 1, properties - 1, {
    vacuum: false,
  });
  const loadedSeconds = seconds(performance.now() - cloneStart);
  const vacuumStart = performance.now();
  await sql.query('vacuum (analyze) property, distribution, ari_property, ari_night, channel_id, channel_resource');
  const vacuumSeconds = seconds(performance.now() - vacuumStart);
  const [counts] = (
    await sql.query<{ properties: string; nights: string; mib: string }>(
      `select (select count(*) from channel_resource where channel_id = $1 and kind = 'property' and status in ('active', 'inactive')) as properties,
            (select count(*) from ari_night) as nights, (select pg_total_relation_size('ari_night') / 1048576) as mib`,
      [channel.id],
    )
  ).rows;
  if (Number(counts!.properties) !== properties)
    throw new Error(`the channel sees ${counts!.properties} properties, expected ${properties}`);
  const setupSeconds = seconds(performance.now() - setupStart);
  return { channel, key, counts: counts!, today, templateSeconds, loadedSeconds, vacuumSeconds, setupSeconds };
}
