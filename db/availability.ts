import type { EntityManager } from '@mikro-orm/postgresql';
import {
  contiguousRanges,
  datesIn,
  defaultNight,
  horizonEnd,
  nightFromRendered,
  patchNight,
  sameStoredNight,
  type AvailabilityUpdate,
  type NightState,
  type PlanShape,
} from '../domain/availability/nights.ts';
import { defaultChildPrices, noteUnpriced, type UnpricedRate } from '../domain/availability/conform.ts';
import { publishedHorizonEnd, rangesBefore, rolledRange } from '../domain/availability/horizon.ts';
import type { PropertyInput } from '../domain/catalogue/source.ts';
import type { Clock } from '../domain/clock.ts';
import { localDate, wholeSeconds } from '../domain/time.ts';
import { renderFor, writeDefaultNights, writeNights } from './availability-night-writes.ts';
import { raiseLogStamps, withChannelLog, type LockedChannelLog } from './catalogue/channel-log.ts';

interface AriRow {
  property_id: string;
  currency: string;
  version: string;
  updated_at: string;
  horizon_end: string;
  timezone: string;
}

export interface PropertyAri {
  propertyId: string;
  content: PropertyInput;
  timezone: string;
}

function plansOf(content: PropertyInput): PlanShape[] {
  return content.rate_plans.map((plan) => ({
    key: plan.key,
    currency: plan.currency,
    default_rates: plan.default_rates ?? null,
    child_age_bands: plan.child_age_bands,
  }));
}

function currencyOf(content: PropertyInput): string {
  return content.rate_plans[0]?.currency ?? 'EUR';
}

async function ariRow(tx: EntityManager, propertyId: string, lock: boolean): Promise<AriRow | null> {
  const [row] = await tx.execute<AriRow[]>(
    `select property_id, currency, version, updated_at, to_char(horizon_end, 'YYYY-MM-DD') as horizon_end, timezone
       from ari_property where property_id = ?${lock ? ' for update' : ''}`,
    [propertyId],
  );
  return row ?? null;
}

async function nights(tx: EntityManager, propertyId: string, from: string, to: string): Promise<Map<string, string>> {
  const rows = await tx.execute<{ night: string; body: string }[]>(
    `select to_char(night, 'YYYY-MM-DD') as night, body from ari_night where property_id = ? and night >= ?::date and night < ?::date`,
    [propertyId, from, to],
  );
  return new Map(rows.map((row) => [row.night, row.body]));
}

/**
 * Writes `availability.updated` for each range to every channel that sees the property, under
 * each channel's log lock (so the events are in commit order), and stamps the property's
 * availability with a new version and an `updated_at` no earlier than any of those channels'
 * last stamp. Those stamps grow in commit order for every channel, and availability is read in
 * stamp order (`availabilityCandidates`): `updated_since` then skips nothing, as on the lists.
 */
async function announce(
  tx: EntityManager,
  propertyId: string,
  ranges: { from: string; to: string }[],
  clock: Clock,
): Promise<void> {
  const channels = await tx.execute<{ channel_id: string; external_id: string }[]>(
    `select channel_id, external_id from channel_resource where kind = 'property' and internal_id = ? and status in ('active', 'inactive') order by channel_id`,
    [propertyId],
  );
  let stamp = wholeSeconds(clock.now());
  for (const channel of channels) {
    await withChannelLog(tx, channel.channel_id, stamp, async (log) => {
      if (log.stamp > stamp) stamp = log.stamp;
      for (const range of ranges) {
        await log.append(
          'availability.updated',
          () => ({ object: 'property', id: channel.external_id, from: range.from, to: range.to }),
          clock,
        );
      }
    });
  }
  // Every channel locked above moves to the common stamp, so none has a later committed one.
  await raiseLogStamps(
    tx,
    channels.map((c) => c.channel_id),
    stamp,
  );
  await tx.execute('update ari_property set version = version + 1, updated_at = ? where property_id = ?', [
    stamp,
    propertyId,
  ]);
}

/**
 * A property the channel can see from now on (newly distributed, coming back, or publishable
 * again): its whole published horizon is announced to that channel, under the channel's log lock
 * the caller holds, and its availability is stamped no earlier than that lock's stamp, so
 * `updated_since` lists it. Other channels that see it read a higher version of the same nights.
 * The version moves by 2: a channel shown the property's tombstone in the availability listing
 * was shown the version then plus one (db/availability-candidates.ts), and the record that
 * replaces it must be higher.
 *
 * In the same statement every channel that sees the property is raised to its new stamp where its
 * last stamp is earlier: the stamp came from this channel's lock, which may run ahead of the
 * others, and one of them could otherwise stamp its next change behind a reader standing on the
 * property (test/db/availability-commit-order.test.ts). A channel already at or past it is
 * neither changed nor locked; one locked here out of the projector's channel order can deadlock,
 * which `writeTransaction` retries.
 */
export async function announceNowVisible(
  tx: EntityManager,
  log: LockedChannelLog,
  propertyId: string,
  externalId: string,
  clock: Clock,
): Promise<void> {
  const ari = await ariRow(tx, propertyId, true);
  if (!ari) return;
  const today = localDate(clock.now(), ari.timezone);
  const to = publishedHorizonEnd(ari.horizon_end, today);
  await log.append('availability.updated', () => ({ object: 'property', id: externalId, from: today, to }), clock);
  await tx.execute(
    `with stamped as (
       update ari_property set version = version + 2, updated_at = greatest(updated_at, ?) where property_id = ?
       returning property_id, updated_at
     )
     update channel_log l set last_stamp = s.updated_at
       from stamped s join channel_resource cr on cr.kind = 'property' and cr.internal_id = s.property_id
      where cr.status in ('active', 'inactive') and l.channel_id = cr.channel_id and l.last_stamp < s.updated_at`,
    [log.stamp, propertyId],
  );
}

/**
 * Brings a property's nights in line with its current shape after a platform write: creates the
 * availability of a new property (every night of the horizon at its defaults), and re-renders
 * the nights when its rate plans, currency, capacity or age bands changed (`conformNight`: prices
 * that no longer fit are dropped or the rate closed). Announces the nights that changed within
 * the published horizon (the spare night past it is announced by the roll that publishes it).
 */
export async function syncPropertyAvailability(tx: EntityManager, property: PropertyAri, clock: Clock): Promise<void> {
  const today = localDate(clock.now(), property.timezone);
  const plans = plansOf(property.content);
  const existing = await ariRow(tx, property.propertyId, true);
  if (!existing) {
    const end = horizonEnd(today);
    await tx.execute(
      `insert into ari_property (property_id, currency, version, updated_at, horizon_end, timezone) values (?, ?, 1, ?, ?::date, ?)`,
      [property.propertyId, currencyOf(property.content), wholeSeconds(clock.now()), end, property.timezone],
    );
    await writeDefaultNights(tx, property.propertyId, property.content, plans, today, end);
    return;
  }
  if (existing.timezone !== property.timezone || existing.currency !== currencyOf(property.content)) {
    await tx.execute('update ari_property set timezone = ?, currency = ? where property_id = ?', [
      property.timezone,
      currencyOf(property.content),
      property.propertyId,
    ]);
  }
  const stored = await nights(tx, property.propertyId, today, existing.horizon_end);
  const changed = new Map<string, string>();
  for (const [date, body] of stored) {
    const rerendered = renderFor(
      nightFromRendered(JSON.parse(body) as Record<string, unknown>),
      property.content,
      plans,
    );
    if (!sameStoredNight(rerendered, body)) changed.set(date, rerendered);
  }
  await writeNights(tx, property.propertyId, changed);
  const ranges = rangesBefore(contiguousRanges([...changed.keys()]), publishedHorizonEnd(existing.horizon_end, today));
  if (ranges.length > 0) await announce(tx, property.propertyId, ranges, clock);
}

/** What a batch did to one property: the nights it changed and their ranges. */
export interface UpdateOutcome {
  /** The platform's reference. */
  property: string;
  changedNights: number;
  ranges: { from: string; to: string }[];
  /** Rates that price adults without child prices where none can be known; nothing was written. */
  unpriced: UnpricedRate[];
}

/**
 * Applies platform updates to one property's nights within its horizon (nights before its today
 * or from its horizon end are not kept and are ignored). Child prices left out take their
 * defaults (`defaultChildPrices`); where none can be known nothing is written and the rates are
 * answered in `unpriced`. Unchanged nights are not written; the changed ones are announced as
 * contiguous ranges, one event each, up to the published horizon (the spare night past it is
 * written now and announced by the roll that publishes it).
 */
export async function applyAvailabilityUpdates(
  tx: EntityManager,
  property: PropertyAri & { ref: string },
  updates: readonly AvailabilityUpdate[],
  clock: Clock,
): Promise<UpdateOutcome> {
  const ari = await ariRow(tx, property.propertyId, true);
  if (!ari) return { property: property.ref, changedNights: 0, ranges: [], unpriced: [] };
  const today = localDate(clock.now(), ari.timezone);
  const plans = plansOf(property.content);
  const from = updates.reduce((min, u) => (u.from < min ? u.from : min), ari.horizon_end);
  const to = updates.reduce((max, u) => (u.to > max ? u.to : max), today);
  const stored = await nights(
    tx,
    property.propertyId,
    from < today ? today : from,
    to > ari.horizon_end ? ari.horizon_end : to,
  );
  const states = new Map<string, NightState>();
  const unpriced: UnpricedRate[] = [];
  for (const update of updates) {
    for (const date of datesIn(
      update.from < today ? today : update.from,
      update.to > ari.horizon_end ? ari.horizon_end : update.to,
    )) {
      const current =
        states.get(date) ??
        (stored.has(date)
          ? nightFromRendered(JSON.parse(stored.get(date)!) as Record<string, unknown>)
          : defaultNight(date, property.content.units, plans));
      const patched = defaultChildPrices(patchNight(current, update), update.rates ?? [], plans);
      noteUnpriced(unpriced, update, patched.unpriced, date);
      states.set(date, patched.night);
    }
  }
  if (unpriced.length > 0) return { property: property.ref, changedNights: 0, ranges: [], unpriced };
  const changed = new Map<string, string>();
  for (const [date, state] of states) {
    const body = renderFor(state, property.content, plans);
    if (!sameStoredNight(body, stored.get(date))) changed.set(date, body);
  }
  await writeNights(tx, property.propertyId, changed);
  const ranges = contiguousRanges([...changed.keys()]);
  const announced = rangesBefore(ranges, publishedHorizonEnd(ari.horizon_end, today));
  if (announced.length > 0) await announce(tx, property.propertyId, announced, clock);
  return { property: property.ref, changedNights: changed.size, ranges, unpriced: [] };
}

/**
 * Properties one transaction of the daily roll takes at most. The roll holds the log lock of every
 * channel that sees the properties it rolls until it commits, so a platform write for those
 * channels waits for one batch at most, never for a whole zone.
 */
export const ROLL_BATCH = 50;

/** Runs `batch` (a `rollZoneBatch` of `size` properties) from the zone's first property to its last, adding up. */
export async function rollInBatches(
  size: number,
  batch: (after: string | null) => Promise<{ properties: number; rolled: number; last: string | null }>,
): Promise<{ properties: number; rolled: number }> {
  const total = { properties: 0, rolled: 0 };
  let after: string | null = null;
  for (;;) {
    const done = await batch(after);
    total.properties += done.properties;
    total.rolled += done.rolled;
    if (done.last === null || done.properties < size) return total;
    after = done.last;
  }
}

/**
 * The daily roll of the zone's next `limit` properties after `after` (by id; null: from the
 * first): for each, drops the nights before its today, adds the nights up to the new stored
 * horizon at their defaults, and announces the nights published since its last roll
 * (`rolledRange`: the night its local midnight added, which the previous roll stored as its
 * spare night; more after an outage). A property already rolled for this local date
 * only loses nights past, so a batch run again (or a roll run again) changes nothing. Answers the
 * last property looked at, where the next batch starts.
 */
export async function rollZoneBatch(
  tx: EntityManager,
  zone: string,
  clock: Clock,
  after: string | null,
  limit: number,
): Promise<{ properties: number; rolled: number; last: string | null }> {
  const today = localDate(clock.now(), zone);
  const end = horizonEnd(today);
  // Locked, so two rolls of one zone (a retried activity beside a slow first attempt) never both
  // add and announce the same nights: the second waits, then sees the new horizon and skips.
  const due = await tx.execute<{ property_id: string; horizon_end: string }[]>(
    `select property_id, to_char(horizon_end, 'YYYY-MM-DD') as horizon_end from ari_property
      where timezone = ? and property_id > ?::uuid order by property_id limit ? for update`,
    [zone, after ?? '00000000-0000-0000-0000-000000000000', limit],
  );
  let rolled = 0;
  for (const row of due) {
    await tx.execute('delete from ari_night where property_id = ? and night < ?::date', [row.property_id, today]);
    if (row.horizon_end >= end) continue;
    // Read after the lock: the rate plans as last committed.
    const [property] = await tx.execute<{ content: PropertyInput }[]>('select content from property where id = ?', [
      row.property_id,
    ]);
    const plans = plansOf(property!.content);
    const start = row.horizon_end > today ? row.horizon_end : today;
    await writeDefaultNights(tx, row.property_id, property!.content, plans, start, end);
    await tx.execute('update ari_property set horizon_end = ?::date where property_id = ?', [end, row.property_id]);
    await announce(tx, row.property_id, [rolledRange(row.horizon_end, today)!], clock);
    rolled += 1;
  }
  return { properties: due.length, rolled, last: due.at(-1)?.property_id ?? null };
}

export { followLocationZone, lockPropertiesByRef, zonesInUse, type BatchProperty } from './availability-zones.ts';
