/**
 * The data `npm run bench:availability` pulls: one property written through the platform's
 * services (catalogue, channel view, prices for every night), then cloned in SQL with fresh ids of
 * the channel's own, so the clones' nights repeat each other's prices.
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

/** Milliseconds as seconds to two decimals, as the bench reports them. */
export const seconds = (ms: number) => Number((ms / 1000).toFixed(2));
/** A SQL string literal (the values here are ids and plan keys, quoted anyway). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A year of a guesthouse room's prices: seasons, dearer weekends, a few sold-out or closed nights. */
function yearOfPrices(property: string, today: string, end: string, units: number): AvailabilityUpdate[] {
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
  const t = templateRow!.id;
  // The template's ids on the channel: the property, its photos and its rate plans (internal keys `<uuid>` and `<uuid>/<key>`).
  const ids = (
    await sql.query<{ kind: string; internal_key: string; external_id: string }>(
      `select kind, internal_key, external_id from channel_id where channel_id = $1 and (internal_key = $2 or internal_key like $2 || '/%') order by kind, internal_key`,
      [channel.id, t],
    )
  ).rows;
  if (ids.filter((id) => id.kind === 'rate_plan').length !== 2)
    throw new Error('the template has no two rate plan ids on the channel');
  // A clone's id of each: same prefix, then '0' and 25 md5 hex digits (a subset of lowercase Crockford base32): unique per clone and kind.
  const cloneId = (id: (typeof ids)[number]) => {
    const suffix = id.internal_key.slice(t.length);
    return `${literal(id.external_id.slice(0, 4) + '0')} || substr(md5(c.id::text || ${literal(`${id.kind}${suffix}`)}), 1, 25)`;
  };
  const propertyId = ids.find((id) => id.kind === 'property')!;
  const bodyText = ids.reduce(
    (text, id) => `replace(${text}, ${literal(id.external_id)}, ${cloneId(id)})`,
    'r.body::text',
  );
  await sql.query(
    'create temp table clone as select gen_random_uuid() as id, i from generate_series(1, $1::int) as i',
    [properties - 1],
  );
  await sql.query(
    `insert into property (id, ref, location_id, owner_id, content, created_at, updated_at)
     select c.id, p.ref || '-' || c.i, p.location_id, p.owner_id, p.content, p.created_at, p.updated_at from clone c, property p where p.id = $1`,
    [t],
  );
  await sql.query(
    'insert into distribution (property_id, channel_id, created_at) select c.id, d.channel_id, d.created_at from clone c, distribution d where d.property_id = $1',
    [t],
  );
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
