import {
  applyAvailabilityUpdates,
  lockPropertiesByRef,
  ROLL_BATCH,
  rollInBatches,
  rollZoneBatch,
  zonesInUse,
  type BatchProperty,
} from '../db/availability.ts';
import { propertiesByRef } from '../db/availability-zones.ts';
import { writeTransaction } from '../db/sql.ts';
import type { UnpricedRate } from '../domain/availability/conform.ts';
import type { AvailabilityUpdate, RatePatch } from '../domain/availability/nights.ts';
import type { PropertyInput } from '../domain/catalogue/source.ts';
import { unknownReference } from '../domain/catalogue/source-rules.ts';
import type { Clock } from '../domain/clock.ts';
import { jsonPointer } from '../domain/json-pointer.ts';
import { childPricesRequired, priceListErrors } from '../domain/pricing/price-lists.ts';
import type { ParameterError } from '../domain/problems.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { writeAndNotify } from './durable-processes.ts';

/** One property's outcome as the contract writes it. */
export interface PropertyUpdateOutcome {
  property: string;
  changed_nights: number;
  ranges: { from: string; to: string }[];
}

/**
 * Platform updates of nights and prices, applied together in one transaction: every property and
 * rate plan they name must exist, every price list must fit the property's capacity and the
 * plan's age bands (`priceListErrors`), and child prices left out must be known on each night
 * (`defaultChildPrices`), else nothing is written. Each property's changed nights are announced
 * to every channel that sees it.
 */
export function postAvailability(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock'>,
  batch: { updates: readonly AvailabilityUpdate[] },
): Promise<{ results: PropertyUpdateOutcome[] }> {
  return writeAndNotify(deps, async (tx) => {
    const rows = await lockPropertiesByRef(tx, [...new Set(batch.updates.map((u) => u.property))].sort());
    const byRef = new Map(rows.map((row) => [row.ref, row]));
    const refused = batch.updates.map((update, i) =>
      updateRuleErrors(
        i,
        update.property,
        (update.rates ?? []).map((rate, j) => ({ index: j, rate })),
        byRef.get(update.property),
      ),
    );
    // Every property's updates are applied, those refused above too, so that a rate whose child
    // prices cannot be known on its nights is reported in the same answer as every other failed
    // rule; any refusal rolls the whole transaction back.
    const results: PropertyUpdateOutcome[] = [];
    for (const row of rows) {
      const updates = batch.updates.filter((u) => u.property === row.ref);
      const outcome = await applyAvailabilityUpdates(
        tx,
        { propertyId: row.id, ref: row.ref, content: row.content, timezone: row.timezone },
        updates,
        deps.clock,
      );
      results.push({ property: outcome.property, changed_nights: outcome.changedNights, ranges: outcome.ranges });
      for (const rate of outcome.unpriced) {
        const i = batch.updates.indexOf(rate.update);
        refused[i]!.push(unpricedError(i, rate, row));
      }
    }
    if (refused.some((errors) => errors.length > 0)) throw invalidParameters(refused.flat());
    return { results };
  });
}

/** One update of a batch as far as it is well formed: its property's reference, and its rates that are. */
export interface WellFormedUpdate {
  index: number;
  property: string;
  rates: { index: number; rate: RatePatch }[];
}

/**
 * The rules between updates and the stored catalogue, for a batch whose shape was refused: over
 * what of it is well formed, so that the one refusal names them too (the operation's
 * `laterRules`). A plain read, no lock. The child prices a night cannot know are found only by
 * applying the batch, so they come once its shape is taken.
 */
export async function availabilityRuleErrors(
  deps: Pick<ServiceDeps, 'orm'>,
  updates: readonly WellFormedUpdate[],
): Promise<ParameterError[]> {
  const rows = await propertiesByRef(deps.orm.em.fork(), [...new Set(updates.map((u) => u.property))].sort());
  const byRef = new Map(rows.map((row) => [row.ref, row]));
  return updates.flatMap((u) => updateRuleErrors(u.index, u.property, u.rates, byRef.get(u.property)));
}

/** The property an update names exists, and so does each rate plan its rates name; each price list fits. */
function updateRuleErrors(
  i: number,
  ref: string,
  rates: readonly { index: number; rate: RatePatch }[],
  property: BatchProperty | undefined,
): ParameterError[] {
  if (!property) return [unknownReference(`/updates/${i}/property`, 'property', ref)];
  return rates.flatMap(({ index: j, rate }): ParameterError[] => {
    const plan = property.content.rate_plans.find((candidate) => candidate.key === rate.rate_plan);
    if (!plan)
      return [
        {
          detail: `the property has no rate plan "${rate.rate_plan}"`,
          code: 'unknown_reference',
          pointer: `/updates/${i}/rates/${j}/rate_plan`,
        },
      ];
    return priceListErrors(rate, {
      maxAdults: property.content.capacity.max_adults,
      bands: plan.child_age_bands,
    }).map((error) => ({
      detail: error.detail,
      code: error.code,
      pointer: jsonPointer(['updates', i, 'rates', j, ...error.path]),
    }));
  });
}

/** Adult prices without child prices on nights that hold none, on a plan without default ones. */
function unpricedError(i: number, rate: UnpricedRate, row: { content: PropertyInput }): ParameterError {
  const planKey = rate.update.rates![rate.rate]!.rate_plan;
  const plan = row.content.rate_plans.find((candidate) => candidate.key === planKey)!;
  const nights = rate.nights === 1 ? `night ${rate.first}` : `${rate.nights} nights from ${rate.first}`;
  const error = childPricesRequired(
    rate.update.rates![rate.rate]!,
    plan.child_age_bands,
    `; the ${nights} hold none to keep and the plan has no default_rates to take them from`,
  )!;
  return {
    detail: error.detail,
    code: error.code,
    pointer: jsonPointer(['updates', i, 'rates', rate.rate, ...error.path]),
  };
}

/**
 * The daily roll of one zone as of `clock` (see `rollZoneBatch`): `batch` properties a
 * transaction, in id order, each transaction run again from the start on a deadlock. Each batch
 * commits its events before the next takes the channels' log locks, so a platform write for a
 * channel of the zone waits for one batch at most. Idempotent per local date, so a roll that
 * stopped half-way (a worker lost) is finished by running it again; `resume.after` (the last
 * property of a committed batch) skips the batches before it, and `committed` is told each
 * batch's progress once it committed.
 */
export async function rollHorizon(
  deps: Pick<ServiceDeps, 'orm'>,
  zone: string,
  clock: Clock,
  batch = ROLL_BATCH,
  resume: { after?: string | null; committed?: (progress: RollProgress) => void } = {},
): Promise<{ properties: number; rolled: number }> {
  const start = resume.after ?? null;
  const total = { properties: 0, rolled: 0 };
  await rollInBatches(batch, async (after) => {
    const done = await writeTransaction(deps.orm.em, (tx) => rollZoneBatch(tx, zone, clock, after ?? start, batch));
    total.properties += done.properties;
    total.rolled += done.rolled;
    if (done.last !== null) resume.committed?.({ after: done.last, ...total });
    return done;
  });
  return total;
}

/** How far a roll got: the last property of its last committed batch, and the counts up to it. */
export interface RollProgress {
  after: string;
  properties: number;
  rolled: number;
}

/** The zones that have properties with availability: one horizon roll each. */
export function zonesToRoll(deps: Pick<ServiceDeps, 'orm'>): Promise<string[]> {
  return zonesInUse(deps.orm.em.fork());
}
