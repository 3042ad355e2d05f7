import type { Party } from './fee.ts';
import type { Money } from './money.ts';
import type { OccupancyPrice } from './rates.ts';

export type AgeBand = { age_from: number; age_to: number };
export type RatePlanForPricing = { id: string; currency: string; child_age_bands: readonly AgeBand[] };

/** One plan's Rate on one night; only the fields pricing reads. */
export type NightRate = {
  rate_plan_id: string;
  closed: boolean;
  prices_by_occupancy: readonly OccupancyPrice[];
  child_prices: readonly (AgeBand & { price: Money })[];
  child_price: Money | null;
  infant_price: Money | null;
  min_stay: number | null;
  closed_to_arrival: boolean;
};

export type Night = {
  date: string;
  units_available: number;
  closed_to_arrival: boolean;
  closed_to_departure: boolean;
  min_stay: number | null;
  max_stay: number | null;
  rates: readonly NightRate[];
};

/** From the property's `capacity`; `max_guests` counts adults and children, not infants. */
export type Capacity = { max_guests?: number; max_children?: number; max_infants?: number };

export type Refusal =
  | { code: 'invalid_dates' }
  | { code: 'invalid_party' }
  | { code: 'party_exceeds_capacity' }
  | { code: 'party_exceeds_occupancy'; adults: number }
  | { code: 'child_age_outside_bands'; age: number }
  | { code: 'night_missing'; date: string }
  | { code: 'rate_closed'; date: string }
  | { code: 'no_units'; date: string }
  | { code: 'closed_to_arrival'; date: string; level: 'property' | 'rate_plan' }
  | { code: 'closed_to_departure'; date: string }
  | { code: 'min_stay'; level: 'property' | 'rate_plan'; required: number; nights: number }
  | { code: 'max_stay'; allowed: number; nights: number }
  | { code: 'price_missing'; date: string; of: 'child' | 'infant' }
  | { code: 'currency_mismatch'; date?: string; fee_type?: string };

const DAY_MS = 86_400_000;

/** The nights of a stay, arrival up to departure exclusive; null when the dates are not a stay. */
export function nightsOfStay(arrival: string, departure: string): string[] | null {
  const start = parseDate(arrival);
  const end = parseDate(departure);
  if (start === null || end === null || end <= start) return null;
  const dates: string[] = [];
  for (let day = start; day < end; day += DAY_MS) dates.push(new Date(day).toISOString().slice(0, 10));
  return dates;
}

function parseDate(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value ? null : time;
}

export function partyRefusals(party: Party, plan: RatePlanForPricing, capacity: Capacity | undefined): Refusal[] {
  const counts = [party.adults, party.infants, ...party.child_ages];
  if (party.adults < 1 || !counts.every((n) => Number.isInteger(n) && n >= 0)) return [{ code: 'invalid_party' }];
  const refusals: Refusal[] = [];
  const guests = party.adults + party.child_ages.length;
  if (
    (capacity?.max_guests !== undefined && guests > capacity.max_guests) ||
    (capacity?.max_children !== undefined && party.child_ages.length > capacity.max_children) ||
    (capacity?.max_infants !== undefined && party.infants > capacity.max_infants)
  ) {
    refusals.push({ code: 'party_exceeds_capacity' });
  }
  if (plan.child_age_bands.length > 0) {
    for (const age of new Set(party.child_ages)) {
      if (!bandOf(plan.child_age_bands, age)) refusals.push({ code: 'child_age_outside_bands', age });
    }
  }
  return refusals;
}

/** Bands are inclusive at both ends; where bands overlap, the first one the plan names wins. */
export function bandOf(bands: readonly AgeBand[], age: number): AgeBand | undefined {
  return bands.find((band) => age >= band.age_from && age <= band.age_to);
}

/**
 * Refusals that depend on the calendar. Arrival rules (closed to arrival, `min_stay`, `max_stay`)
 * are read on the arrival night only, the usual reading in the industry: a stay is judged by the
 * night it starts. Closed to departure is read on the departure date's night; when that night is
 * not published (a stay ending on `horizon_end`) nothing forbids the departure.
 */
export function calendarRefusals(
  planId: string,
  stayDates: readonly string[],
  departure: string,
  nightsByDate: ReadonlyMap<string, Night>,
): { refusals: Refusal[]; rates: { date: string; rate: NightRate }[] } {
  const refusals: Refusal[] = [];
  const rates: { date: string; rate: NightRate }[] = [];
  for (const date of stayDates) {
    const night = nightsByDate.get(date);
    if (!night) {
      refusals.push({ code: 'night_missing', date });
      continue;
    }
    const rate = night.rates.find((r) => r.rate_plan_id === planId);
    if (!rate || rate.closed) refusals.push({ code: 'rate_closed', date });
    else rates.push({ date, rate });
    if (night.units_available < 1) refusals.push({ code: 'no_units', date });
  }
  const arrivalNight = nightsByDate.get(stayDates[0] ?? '');
  if (arrivalNight) refusals.push(...arrivalRefusals(planId, arrivalNight, stayDates.length));
  if (nightsByDate.get(departure)?.closed_to_departure) refusals.push({ code: 'closed_to_departure', date: departure });
  return { refusals, rates };
}

function arrivalRefusals(planId: string, night: Night, nights: number): Refusal[] {
  const refusals: Refusal[] = [];
  const rate = night.rates.find((r) => r.rate_plan_id === planId);
  if (night.closed_to_arrival) refusals.push({ code: 'closed_to_arrival', date: night.date, level: 'property' });
  if (rate?.closed_to_arrival) refusals.push({ code: 'closed_to_arrival', date: night.date, level: 'rate_plan' });
  if (night.min_stay !== null && nights < night.min_stay) {
    refusals.push({ code: 'min_stay', level: 'property', required: night.min_stay, nights });
  }
  if (rate && rate.min_stay !== null && nights < rate.min_stay) {
    refusals.push({ code: 'min_stay', level: 'rate_plan', required: rate.min_stay, nights });
  }
  // A max_stay below 1 would forbid every stay; it is read as "no maximum".
  if (night.max_stay !== null && night.max_stay >= 1 && nights > night.max_stay) {
    refusals.push({ code: 'max_stay', allowed: night.max_stay, nights });
  }
  return refusals;
}
