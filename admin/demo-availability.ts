import type { z } from 'zod';
import { addDays, localDate } from '../domain/time.ts';
import { datesIn, horizonEnd, type AvailabilityUpdate } from '../domain/availability/nights.ts';
import type { PropertyInput } from '../domain/catalogue/source.ts';
import type { DemoWrite } from './demo-catalogue.ts';

type PropertyBody = z.input<typeof PropertyInput>;

/** Base price of a double room night, in minor units, by the property's currency and type. */
function basePrice(property: PropertyBody): number {
  const ron = property.rate_plans[0]?.currency === 'RON';
  const byType: Record<string, number> = { guesthouse_room: 28_000, apartment: 35_000, villa: 120_000 };
  const base = byType[property.type] ?? 30_000;
  return ron ? base : Math.round(base / 5);
}

/** Season factor: summer and the winter holidays are high, November and March low. */
function season(date: string): number {
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  if ((month === 12 && day >= 20) || (month === 1 && day <= 3)) return 1.5;
  if (month >= 6 && month <= 8) return 1.4;
  if (month === 11 || month === 3) return 0.85;
  return 1;
}

function isWeekendNight(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday === 5 || weekday === 6;
}

/**
 * A year of nights for each demo property: seasonal prices per number of adults, child prices
 * by the plan's age bands (or one child price), infants free, a non-refundable plan 10 % below
 * the flexible one, three-night minimum stays in high season and two at weekends, and one closed
 * maintenance week in February. Consecutive nights with the same values are one update.
 */
export function demoAvailability(writes: readonly DemoWrite[], now: Date): AvailabilityUpdate[] {
  const updates: AvailabilityUpdate[] = [];
  // Each property's year starts on its own local today: around midnight Bucharest is a day ahead
  // of Rome and Madrid.
  const zones = new Map(
    writes
      .filter((w) => w.operationId === 'putLocation')
      .map((w) => [w.ref, (w.body as { timezone: string }).timezone]),
  );
  for (const write of writes) {
    if (write.operationId !== 'putProperty') continue;
    const property = write.body as PropertyBody;
    const base = basePrice(property);
    const zone = zones.get(property.location);
    if (!zone) throw new Error(`demo property ${write.ref} names no demo location`);
    const today = localDate(now, zone);
    const perNight = [...datesIn(today, horizonEnd(today))].map((date): AvailabilityUpdate => {
      const factor = season(date) * (isWeekendNight(date) ? 1.15 : 1);
      const maintenance =
        date.slice(5, 7) === '02' &&
        Number(date.slice(8, 10)) >= 9 &&
        Number(date.slice(8, 10)) <= 15 &&
        property.type === 'villa';
      const high = season(date) >= 1.4;
      return {
        property: write.ref,
        from: date,
        to: addDays(date, 1),
        units_available: maintenance ? 0 : property.units,
        min_stay: high ? 3 : isWeekendNight(date) ? 2 : 1,
        closed_to_arrival: false,
        rates: property.rate_plans.map((plan, index) => {
          const planFactor = index === 0 ? 1 : 0.9;
          const double = Math.round((base * factor * planFactor) / 100) * 100;
          const adults = Array.from({ length: property.capacity.max_adults }, (_, i) => i + 1);
          const bands = plan.child_age_bands ?? [];
          return {
            rate_plan: plan.key,
            prices_by_occupancy: adults.map((n) => ({
              adults: n,
              amount: n <= 2 ? double : double + (n - 2) * Math.round(double * 0.25),
            })),
            child_prices: bands.map((band) => ({
              age_from: band.age_from,
              age_to: band.age_to,
              amount: band.age_to <= 2 ? 0 : Math.round(double * 0.15),
            })),
            child_price: bands.length === 0 ? Math.round(double * 0.2) : null,
            infant_price: 0,
            closed: maintenance,
          };
        }),
      };
    });
    // Merge runs of identical nights into one update each.
    for (const night of perNight) {
      const last = updates.at(-1);
      const same =
        last &&
        last.property === night.property &&
        last.to === night.from &&
        JSON.stringify({ ...last, from: '', to: '' }) === JSON.stringify({ ...night, from: '', to: '' });
      if (same) last.to = night.to;
      else updates.push(night);
    }
  }
  return updates;
}
