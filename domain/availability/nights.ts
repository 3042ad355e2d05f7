import { z } from 'zod';
import { ownValue } from '../own.ts';
import { addDays } from '../time.ts';
import { summarizeOccupancyPrices } from '../pricing/rates.ts';

/**
 * Nights as the platform keeps them and as channels read them. A night is stored rendered (the
 * JSON a channel reads) with each rate plan named by a placeholder of the plan's platform key,
 * which the API swaps for the channel's `rpl_` id: rendering happens once per write, not once per
 * read, and the rendered night holds everything needed to patch it again.
 */

export const HORIZON_NIGHTS = 365;
/** A query window spans at most this many nights. */
export const MAX_WINDOW_NIGHTS = 365;
/** A page holds at most this many nights. */
export const MAX_PAGE_NIGHTS = 5000;

export interface RateState {
  prices_by_occupancy: { adults: number; amount: number }[];
  child_prices: { age_from: number; age_to: number; amount: number }[];
  child_price: number | null;
  infant_price: number | null;
  closed: boolean;
  min_stay: number | null;
  closed_to_arrival: boolean;
}

export interface NightState {
  date: string;
  units_available: number;
  closed_to_arrival: boolean;
  closed_to_departure: boolean;
  min_stay: number;
  max_stay: number | null;
  /** By rate plan key. */
  rates: Record<string, RateState>;
}

export interface PlanShape {
  key: string;
  currency: string;
  /** The plan's child age bands; absent: none. */
  child_age_bands?: readonly { age_from: number; age_to: number }[] | undefined;
  /** Prices for nights materialised by the horizon roll; absent: such nights are closed on this plan. */
  default_rates?: Omit<RateState, 'closed' | 'closed_to_arrival'> | null | undefined;
}

/** A rate plan's id in a stored night: `\u0001<key>`, swapped for the channel's id on read. */
export function planPlaceholder(key: string): string {
  return `\u0001${key}`;
}

/** Matches a placeholder as it appears in stored JSON text. */
export const PLACEHOLDER_IN_JSON = /"\\u0001([A-Za-z0-9._:-]+)"/g;

/** The width in bytes of a channel's rate plan id as a JSON string: `"rpl_` and 26 characters `"`. */
export const PLAN_ID_JSON_WIDTH = 32;

/** A placeholder and the spaces after it (see `storedNightText`). */
const PADDED_PLACEHOLDER = /("\\u0001[A-Za-z0-9._:-]+") +/g;

/**
 * A night's text as stored: its JSON, each placeholder followed by spaces up to
 * `PLAN_ID_JSON_WIDTH` bytes (whitespace a JSON parser skips), so a page is written by copying the
 * text whole and overwriting each placeholder with the channel's id, byte for byte. A placeholder
 * of a key longer than 24 characters does not fit and stays as it is; a reader swaps it the slow way.
 */
export function storedNightText(night: Record<string, unknown>): string {
  return JSON.stringify(night).replace(PLACEHOLDER_IN_JSON, (placeholder) =>
    placeholder.padEnd(PLAN_ID_JSON_WIDTH, ' '),
  );
}

/**
 * Whether two stored texts are the same night: the same text, or the same once the spaces after
 * their placeholders are dropped (a night stored before placeholders were padded is not changed
 * by being rendered again).
 */
export function sameStoredNight(a: string, b: string | undefined): boolean {
  if (a === b) return true;
  return b !== undefined && a.replace(PADDED_PLACEHOLDER, '$1') === b.replace(PADDED_PLACEHOLDER, '$1');
}

/**
 * A night's `max_stay` when the host sets none: the longest stay one query window covers (the
 * platform's own `max_stay` is at most 365 too), so "no maximum" is an integer as the contract types it.
 */
export const NO_MAXIMUM_STAY = 365;
/** A rate's `min_stay` when its plan sets none: the plan asks nothing beyond the night's own `min_stay`. */
const NO_PLAN_MINIMUM = 1;

/**
 * The night as a channel reads it, every field its contract type (integers and money, never
 * null). Every rate plan of the property is present; a plan with no price that night is `closed`
 * and has no `price`, `base_occupancy` or `extra_guest_price` (they are defined from an empty
 * `prices_by_occupancy`), so a night is never missing a plan. `child_price` and `infant_price`
 * appear when the host set them. A field that is absent is the only way a value is missing.
 */
export function renderNight(night: NightState, plans: readonly PlanShape[]): Record<string, unknown> {
  return {
    date: night.date,
    units_available: night.units_available,
    closed_to_arrival: night.closed_to_arrival,
    closed_to_departure: night.closed_to_departure,
    rates: plans.map((plan) => {
      const rate = ownValue(night.rates, plan.key);
      const priced = rate !== undefined && rate.prices_by_occupancy.length > 0;
      const list = priced
        ? [...rate.prices_by_occupancy]
            .sort((a, b) => a.adults - b.adults)
            .map((p) => ({ adults: p.adults, price: { amount: p.amount, currency: plan.currency } }))
        : [];
      const summary = priced ? summarizeOccupancyPrices(list) : null;
      return {
        rate_plan_id: planPlaceholder(plan.key),
        ...(summary
          ? {
              price: summary.price,
              base_occupancy: summary.base_occupancy,
              extra_guest_price: summary.extra_guest_price,
            }
          : {}),
        closed: !priced || rate.closed,
        prices_by_occupancy: list,
        child_prices: priced
          ? rate.child_prices.map((c) => ({
              age_from: c.age_from,
              age_to: c.age_to,
              price: { amount: c.amount, currency: plan.currency },
            }))
          : [],
        ...(priced && rate.child_price !== null
          ? { child_price: { amount: rate.child_price, currency: plan.currency } }
          : {}),
        ...(priced && rate.infant_price !== null
          ? { infant_price: { amount: rate.infant_price, currency: plan.currency } }
          : {}),
        min_stay: rate?.min_stay ?? NO_PLAN_MINIMUM,
        closed_to_arrival: rate?.closed_to_arrival ?? false,
      };
    }),
    min_stay: night.min_stay,
    max_stay: night.max_stay ?? NO_MAXIMUM_STAY,
  };
}

/** A stored rate; nights rendered before every field was typed carry nulls, read the same way. */
interface RenderedRate {
  rate_plan_id: string;
  prices_by_occupancy: { adults: number; price: { amount: number } }[];
  child_prices: { age_from: number; age_to: number; price: { amount: number } }[];
  child_price?: { amount: number } | null;
  infant_price?: { amount: number } | null;
  closed: boolean;
  min_stay?: number | null;
  closed_to_arrival: boolean;
}

/** The state a stored night was rendered from (a plan minimum of 1 and no maximum read as unset). */
export function nightFromRendered(rendered: Record<string, unknown>): NightState {
  const rates: Record<string, RateState> = {};
  for (const rate of rendered.rates as RenderedRate[]) {
    const minStay =
      rate.min_stay === undefined || rate.min_stay === null || rate.min_stay <= NO_PLAN_MINIMUM ? null : rate.min_stay;
    if (rate.prices_by_occupancy.length === 0 && minStay === null && !rate.closed_to_arrival) continue;
    rates[rate.rate_plan_id.slice(1)] = {
      prices_by_occupancy: rate.prices_by_occupancy.map((p) => ({ adults: p.adults, amount: p.price.amount })),
      child_prices: rate.child_prices.map((c) => ({ age_from: c.age_from, age_to: c.age_to, amount: c.price.amount })),
      child_price: rate.child_price?.amount ?? null,
      infant_price: rate.infant_price?.amount ?? null,
      closed: rate.prices_by_occupancy.length > 0 && rate.closed,
      min_stay: minStay,
      closed_to_arrival: rate.closed_to_arrival,
    };
  }
  const maxStay = rendered.max_stay as number | null | undefined;
  return {
    date: rendered.date as string,
    units_available: rendered.units_available as number,
    closed_to_arrival: rendered.closed_to_arrival as boolean,
    closed_to_departure: rendered.closed_to_departure as boolean,
    min_stay: rendered.min_stay as number,
    max_stay: maxStay === undefined || maxStay === null || maxStay >= NO_MAXIMUM_STAY ? null : maxStay,
    rates,
  };
}

/** A night the roll adds: all units free, no restriction, each plan at its defaults or closed. */
export function defaultNight(date: string, units: number, plans: readonly PlanShape[]): NightState {
  const rates: Record<string, RateState> = {};
  for (const plan of plans) {
    if (plan.default_rates)
      rates[plan.key] = { ...structuredClone(plan.default_rates), closed: false, closed_to_arrival: false };
  }
  return {
    date,
    units_available: units,
    closed_to_arrival: false,
    closed_to_departure: false,
    min_stay: 1,
    max_stay: null,
    rates,
  };
}

// --- Dates (local calendar dates, `YYYY-MM-DD`) -------------------------------------------

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function* datesIn(from: string, to: string): Generator<string> {
  for (let date = from; date < to; date = addDays(date, 1)) yield date;
}

/**
 * The horizon's end (exclusive) as a roll stores it for a property whose local date is `today`:
 * 366 nights are kept, today through today + 365. The spare night is stored, not published: it
 * keeps the published horizon (horizon.ts, `publishedHorizonEnd`) 365 nights long between the
 * property's local midnight and the roll that follows.
 */
export function horizonEnd(today: string): string {
  return addDays(today, HORIZON_NIGHTS + 1);
}

/** True when a stored horizon no longer reaches 365 nights past `today`: its roll is overdue. */
export function horizonFallsShort(storedEnd: string, today: string): boolean {
  return daysBetween(today, storedEnd) < HORIZON_NIGHTS;
}

// --- Platform updates ------------------------------------------------------------------------

const Amount = z.int().min(0).max(100_000_000_00);
const IsoDate = z.iso.date();

export const RatePatch = z
  .object({
    rate_plan: z.string().min(1).max(64),
    prices_by_occupancy: z
      .array(z.object({ adults: z.int().min(1).max(100), amount: Amount }).strict())
      .min(1)
      .max(100)
      .optional(),
    child_prices: z
      .array(z.object({ age_from: z.int().min(0).max(17), age_to: z.int().min(0).max(17), amount: Amount }).strict())
      .max(6)
      .optional(),
    child_price: Amount.nullable().optional(),
    infant_price: Amount.nullable().optional(),
    closed: z.boolean().optional(),
    min_stay: z.int().min(1).max(365).nullable().optional(),
    closed_to_arrival: z.boolean().optional(),
  })
  .strict();
export type RatePatch = z.infer<typeof RatePatch>;

export const AvailabilityUpdate = z
  .object({
    property: z.string().min(1).max(64),
    from: IsoDate,
    to: IsoDate,
    units_available: z.int().min(0).max(1000).optional(),
    closed_to_arrival: z.boolean().optional(),
    closed_to_departure: z.boolean().optional(),
    min_stay: z.int().min(1).max(365).optional(),
    max_stay: z.int().min(1).max(365).nullable().optional(),
    rates: z.array(RatePatch).max(20).optional(),
  })
  .strict()
  .superRefine((update, ctx) => {
    if (update.from >= update.to)
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: '`to` is after `from` (exclusive)',
        params: { code: 'range' },
      });
    else if (daysBetween(update.from, update.to) > HORIZON_NIGHTS + 1)
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `an update spans at most ${HORIZON_NIGHTS + 1} nights`,
        params: { code: 'max_nights' },
      });
  });
export type AvailabilityUpdate = z.infer<typeof AvailabilityUpdate>;

export const AvailabilityBatch = z.object({ updates: z.array(AvailabilityUpdate).min(1).max(1000) }).strict();

/** Applies one update to one night; returns the night unchanged (same object) when nothing moved. */
export function patchNight(night: NightState, update: AvailabilityUpdate): NightState {
  const next: NightState = structuredClone(night);
  if (update.units_available !== undefined) next.units_available = update.units_available;
  if (update.closed_to_arrival !== undefined) next.closed_to_arrival = update.closed_to_arrival;
  if (update.closed_to_departure !== undefined) next.closed_to_departure = update.closed_to_departure;
  if (update.min_stay !== undefined) next.min_stay = update.min_stay;
  if (update.max_stay !== undefined) next.max_stay = update.max_stay;
  for (const patch of update.rates ?? []) {
    const rate: RateState = ownValue(next.rates, patch.rate_plan) ?? {
      prices_by_occupancy: [],
      child_prices: [],
      child_price: null,
      infant_price: null,
      closed: false,
      min_stay: null,
      closed_to_arrival: false,
    };
    if (patch.prices_by_occupancy !== undefined)
      rate.prices_by_occupancy = patch.prices_by_occupancy.map((p) => ({ ...p }));
    if (patch.child_prices !== undefined) rate.child_prices = patch.child_prices.map((c) => ({ ...c }));
    if (patch.child_price !== undefined) rate.child_price = patch.child_price;
    if (patch.infant_price !== undefined) rate.infant_price = patch.infant_price;
    if (patch.closed !== undefined) rate.closed = patch.closed;
    if (patch.min_stay !== undefined) rate.min_stay = patch.min_stay;
    if (patch.closed_to_arrival !== undefined) rate.closed_to_arrival = patch.closed_to_arrival;
    next.rates[patch.rate_plan] = rate;
  }
  return next;
}

/** Contiguous runs of dates (sorted), as `[from, to)` ranges. */
export function contiguousRanges(dates: readonly string[]): { from: string; to: string }[] {
  const ranges: { from: string; to: string }[] = [];
  for (const date of [...dates].sort()) {
    const last = ranges.at(-1);
    if (last && last.to === date) last.to = addDays(date, 1);
    else ranges.push({ from: date, to: addDays(date, 1) });
  }
  return ranges;
}
