import type { z } from 'zod';
import { AMENITIES } from '../catalogue/amenities.ts';
import type { PropertyInput } from '../catalogue/source.ts';
import { addDays } from '../time.ts';
import type { Stream } from './random.ts';
import { CAPTIONS, PLAN_WORDS, textIn, type Country } from './places.ts';

/**
 * The parts of a generated property that carry the contract's cases: its tourist tax and fees,
 * legal data, rate plans with and without child age bands, photos and amenities. Each case is
 * chosen by the property's index (so a catalogue of any size cycles through all of them), the
 * values within it by the property's own stream.
 */

export type PropertyBody = z.input<typeof PropertyInput>;
type Fee = NonNullable<PropertyBody['fees']>[number];
type Plan = PropertyBody['rate_plans'][number];
type Legal = NonNullable<PropertyBody['legal']>;

/** The tourist-tax cases, in the order property indexes cycle through them. */
export const TAX_CASES = [
  'none',
  'undeclared',
  'fixed_guest_night',
  'fixed_unknown_amount',
  'percent_stay',
  'percent_unknown_rate',
  'unknown_basis_night',
  'unknown_basis_stay',
] as const;
export type TaxCase = (typeof TAX_CASES)[number];

/** The tourist tax of case `taxCase`: the status and, when levied, its `city_tax` fee. */
export function touristTax(
  taxCase: TaxCase,
  country: Country,
  stream: Stream,
): { status: PropertyBody['city_tax_status']; fee: Fee | null } {
  const levied = (fee: Omit<Fee, 'type' | 'payable_at'>) => ({
    status: 'levied' as const,
    fee: { type: 'city_tax' as const, payable_at: 'property' as const, included_in_price: false, ...fee },
  });
  switch (taxCase) {
    case 'none':
    case 'undeclared':
      return { status: taxCase, fee: null };
    case 'fixed_guest_night':
      return levied({
        basis: 'fixed',
        amount: { amount: Math.round(country.basePrice / 50) * stream.int(1, 3), currency: country.currency },
        per: 'guest_night',
        max_nights: stream.pick([null, 5, 7, 10]),
        exempts_children: stream.chance(0.5),
      });
    case 'fixed_unknown_amount':
      return levied({ basis: 'fixed', amount: null, per: 'guest_night', exempts_children: null });
    case 'percent_stay':
      return levied({
        basis: 'percent',
        percent_bp: stream.pick([50, 100, 125, 300]),
        percent_of: 'accommodation_excluding_vat',
        per: 'stay',
      });
    case 'percent_unknown_rate':
      return levied({ basis: 'percent', percent_bp: null, percent_of: 'accommodation_excluding_vat', per: 'stay' });
    case 'unknown_basis_night':
      return levied({ basis: null, per: 'night' });
    case 'unknown_basis_stay':
      return levied({ basis: null, per: 'stay' });
  }
}

export function cleaningFee(country: Country, stream: Stream): Fee {
  return {
    type: 'cleaning',
    basis: 'fixed',
    amount: { amount: Math.round((country.basePrice * stream.int(3, 8)) / 1000) * 100, currency: country.currency },
    per: 'stay',
    included_in_price: false,
    payable_at: 'booking',
  };
}

const RO_CATEGORIES: Readonly<Record<string, string>> = {
  guesthouse_room: 'pensiune turistică',
  hotel_room: 'hotel',
  apartment: 'apartament de închiriat',
  studio: 'apartament de închiriat',
  house: 'casă de vacanță',
  villa: 'vilă',
  cabin: 'cabană',
};

/**
 * The legal data a property of the country is published with: a Romanian classification (the
 * first Romanian property of every 40 expires within days, the rest in years), an Italian CIN
 * (one in four dated), the identifiers other countries' hosts carry.
 */
export function legalData(country: Country, type: string, countryIndex: number, today: string, stream: Stream): Legal {
  const none: Legal = { classification: null, registration_number: null, identifiers: [] };
  switch (country.code) {
    case 'RO':
      return {
        ...none,
        classification: {
          certificate_number: `${stream.pick(['BV', 'SB', 'CT', 'CJ'])}-${stream.int(1000, 9999)}`,
          category: RO_CATEGORIES[type] ?? 'pensiune turistică',
          rating_kind: type === 'guesthouse_room' ? 'flori' : 'stele',
          rating: stream.int(1, 5),
          valid_until: addDays(today, countryIndex % 40 === 0 ? 2 + ((countryIndex / 40) % 5) : stream.int(200, 1500)),
          country: 'RO',
        },
      };
    case 'IT':
      return {
        ...none,
        identifiers: [
          {
            scheme: 'it.cin',
            value: `IT${stream.int(100000, 999999)}C2${stream.code(8)}`,
            valid_until: countryIndex % 4 === 3 ? addDays(today, stream.int(300, 900)) : null,
            issued_by: 'Ministero del Turismo',
          },
        ],
      };
    case 'ES':
      return {
        ...none,
        identifiers: [{ scheme: 'es.ri', value: `ESFCTU${stream.code(12)}`, valid_until: null, issued_by: null }],
      };
    case 'PT':
      return {
        ...none,
        identifiers: [
          { scheme: 'pt.rnal', value: `${stream.int(10000, 199999)}/AL`, valid_until: null, issued_by: null },
        ],
      };
    case 'JP':
      return {
        ...none,
        identifiers: [
          { scheme: 'jp.minpaku', value: `M${stream.int(100000000, 999999999)}`, valid_until: null, issued_by: null },
        ],
      };
    default:
      return none;
  }
}

/** The child age bands of a plan, by case: two bands, three bands, or none (one `child_price`). */
const BAND_CASES = [
  [
    { age_from: 0, age_to: 2 },
    { age_from: 3, age_to: 11 },
  ],
  [],
  [
    { age_from: 0, age_to: 5 },
    { age_from: 6, age_to: 13 },
    { age_from: 14, age_to: 17 },
  ],
] as const;

/** A night's prices of a plan: one per number of adults, one per band (or `child_price`), infants free. */
export function planPrices(double: number, maxAdults: number, bands: readonly { age_from: number; age_to: number }[]) {
  return {
    prices_by_occupancy: Array.from({ length: maxAdults }, (_, i) => ({
      adults: i + 1,
      amount: i === 0 ? Math.round((double * 0.85) / 100) * 100 : double + Math.max(0, i - 1) * Math.round(double / 4),
    })),
    child_prices: bands.map((band) => ({
      age_from: band.age_from,
      age_to: band.age_to,
      amount: band.age_to <= 2 ? 0 : Math.round(double / 7),
    })),
    child_price: bands.length === 0 ? Math.round(double / 5) : null,
    infant_price: 0,
  };
}

/**
 * The property's rate plans, by `index % 3`: flexible and non-refundable with two age bands;
 * one flexible plan without bands; flexible with three bands beside a non-refundable one without.
 * Each carries its default prices, so every night of the horizon is priced from the start.
 */
export function ratePlans(
  index: number,
  country: Country,
  double: number,
  maxAdults: number,
  breakfast: boolean,
): Plan[] {
  const bandCase = index % BAND_CASES.length;
  const flexibleBands = BAND_CASES[bandCase]!;
  const name = (words: Readonly<Record<string, string>>) => textIn(country.languages, (l) => words[l]!);
  const flexible: Plan = {
    key: 'flexible',
    name: name(breakfast ? PLAN_WORDS.breakfast : PLAN_WORDS.flexible),
    meal_plan: breakfast ? 'breakfast' : 'none',
    currency: country.currency,
    child_age_bands: flexibleBands.map((band) => ({ ...band })),
    cancellation: { refundable: true, free_until_days_before: 7, penalty: 'first_night', penalty_percent: null },
    default_rates: { ...planPrices(double, maxAdults, flexibleBands), min_stay: null },
  };
  if (bandCase === 1) return [flexible];
  const nonRefundableBands = bandCase === 0 ? flexibleBands : [];
  const lower = Math.round((double * 0.9) / 100) * 100;
  return [
    flexible,
    {
      key: 'non-refundable',
      name: name(PLAN_WORDS.nonRefundable),
      meal_plan: breakfast ? 'breakfast' : 'none',
      currency: country.currency,
      lower_price_reasons: ['promo_code'],
      child_age_bands: nonRefundableBands.map((band) => ({ ...band })),
      cancellation: { refundable: false, free_until_days_before: null, penalty: 'full_stay', penalty_percent: null },
      default_rates: { ...planPrices(lower, maxAdults, nonRefundableBands), min_stay: null },
    },
  ];
}

const PHOTO_ROOMS = ['bedroom', 'living', 'bathroom', 'kitchen', 'exterior', 'view', 'terrace', 'garden'] as const;

/** Three to six photos, portrait and landscape, the last of some without a room or caption. */
export function photos(ref: string, country: Country, stream: Stream): NonNullable<PropertyBody['photos']> {
  const count = stream.int(3, 6);
  const first = stream.int(0, PHOTO_ROOMS.length - 1);
  return Array.from({ length: count }, (_, k) => {
    const room = PHOTO_ROOMS[(first + k) % PHOTO_ROOMS.length]!;
    const bare = k === count - 1 && stream.chance(0.3);
    const portrait = stream.chance(0.25);
    return {
      key: `photo-${k + 1}`,
      url: `https://cdn.sandbox.example.com/${ref}/photo-${k + 1}.jpg`,
      content_type: 'image/jpeg' as const,
      width: portrait ? 1600 : 2400,
      height: portrait ? 2400 : 1600,
      checksum: `sha256:${stream.hex(64)}`,
      room: bare ? null : room,
      caption: bare ? null : textIn(country.languages, (l) => CAPTIONS[room]![l]),
    };
  });
}

/** Every amenity on one property in a hundred; the rest a window of the list that moves with the index. */
export function amenities(index: number, stream: Stream): string[] {
  const codes = AMENITIES.map((a) => a.code);
  if (index % 100 === 1) return codes;
  const start = (index * 11) % codes.length;
  return Array.from({ length: stream.int(8, 20) }, (_, k) => codes[(start + k) % codes.length]!);
}
