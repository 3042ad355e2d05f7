import { streamOf, type Stream } from './random.ts';
import { DESCRIPTIONS, TYPE_WORDS, VARIANT_WORDS, textIn, type Country } from './places.ts';
import {
  amenities,
  cleaningFee,
  legalData,
  photos,
  ratePlans,
  TAX_CASES,
  touristTax,
  type PropertyBody,
} from './property-parts.ts';

export type { PropertyBody };

/** What one property of the sandbox catalogue is drawn from. */
export interface PropertySeed {
  seed: number;
  /** The property's place in the catalogue: the cases cycle with it. */
  index: number;
  /** Its place among its country's properties: the legal cases cycle with it. */
  countryIndex: number;
  ref: string;
  /** Its room type's place within its location. */
  room: number;
  country: Country;
  type: string;
  location: { ref: string; city: string; name: string };
  owner: string;
  channels: readonly string[];
  /** The property's local date the catalogue is dated from. */
  today: string;
}

/** A night for two in minor units, by property type, rounded to a hundred. */
const TYPE_FACTORS: Readonly<Record<string, number>> = {
  guesthouse_room: 0.8,
  hotel_room: 1,
  apartment: 1.2,
  studio: 0.9,
  house: 1.8,
  villa: 3,
  cabin: 1.1,
};

function capacity(type: string, room: number, stream: Stream): PropertyBody['capacity'] {
  const rooms = type === 'guesthouse_room' || type === 'hotel_room';
  const guests = rooms
    ? 2 + (room % 3)
    : type === 'studio'
      ? 2
      : type === 'villa'
        ? stream.int(6, 10)
        : type === 'house'
          ? stream.int(4, 8)
          : stream.int(2, 6);
  const bedrooms = rooms || type === 'studio' ? (type === 'studio' ? 0 : 1) : Math.max(1, Math.floor(guests / 2));
  return {
    max_guests: guests,
    max_adults: guests > 2 ? guests - 1 : guests,
    max_children: guests > 2 ? Math.min(3, guests - 1) : stream.int(0, 1),
    max_infants: stream.int(0, 2),
    bedrooms,
    bathrooms: Math.max(1, Math.ceil(bedrooms / 2)) + (guests >= 6 ? 0.5 : 0),
    beds: [
      { type: stream.pick(['double', 'queen', 'king']), count: 1 },
      ...(guests > 2 ? [{ type: 'single', count: guests - 2 }] : []),
    ],
  };
}

/** One generated property: its cases from `index`, its values from its own stream. */
export function generatedProperty(p: PropertySeed): PropertyBody {
  const stream = streamOf(p.seed, `property:${p.ref}`);
  const { country } = p;
  const cap = capacity(p.type, p.room, stream);
  const double = Math.round((country.basePrice * TYPE_FACTORS[p.type]! * (1 + stream.next() * 0.4)) / 100) * 100;
  const tax = touristTax(TAX_CASES[p.index % TAX_CASES.length]!, country, stream);
  const cleaning = p.index % 2 === 0 ? [cleaningFee(country, stream)] : [];
  const typeWord = (l: keyof typeof DESCRIPTIONS) => TYPE_WORDS[p.type]![l];
  const variant = VARIANT_WORDS[p.room % VARIANT_WORDS.length]!;
  const host = p.ref.toLowerCase();
  const byRequest = p.index % 4 === 3;
  return {
    location: p.location.ref,
    owner: p.owner,
    status: p.index % 23 === 22 ? 'inactive' : 'active',
    type: p.type as PropertyBody['type'],
    units: p.type === 'guesthouse_room' || p.type === 'hotel_room' ? stream.int(1, 6) : 1,
    name: textIn(country.languages, (l) => `${typeWord(l)} ${variant[l]}, ${p.location.name}`),
    description: textIn(country.languages, (l) => DESCRIPTIONS[l](typeWord(l), p.location.city)),
    capacity: cap,
    photos: photos(p.ref, country, stream),
    check_in: { from: stream.pick(['14:00', '15:00', '16:00']), until: stream.pick(['20:00', '22:00', '23:00']) },
    check_out: { until: stream.pick(['10:00', '11:00', '12:00']) },
    rate_plans: ratePlans(
      p.index,
      country,
      double,
      cap.max_adults,
      p.type === 'guesthouse_room' || p.type === 'hotel_room',
    ),
    fees: [...cleaning, ...(tax.fee ? [tax.fee] : [])],
    city_tax_status: tax.status,
    legal: legalData(country, p.type, p.countryIndex, p.today, stream),
    booking: byRequest
      ? { method: 'request', request_email: `bookings@${host}.example.com` }
      : {
          method: 'redirect',
          url: `https://book.${host}.example.com/stay`,
          url_template: `https://book.${host}.example.com/stay?adults={adults}&children={children}`,
        },
    area_sqm: stream.int(14, 40) + cap.max_guests * 8,
    floor: p.type === 'house' || p.type === 'villa' || p.type === 'cabin' ? 0 : stream.int(0, 5),
    elevator: stream.pick([true, false, null]),
    amenities: amenities(p.index, stream),
    house_rules: {
      smoking: false,
      pets: stream.chance(0.3),
      parties: false,
      quiet_hours: stream.chance(0.7) ? { from: '22:00', until: '08:00' } : null,
      min_age: stream.pick([null, 18, 21, 25]),
    },
    extensions: Object.fromEntries(
      p.channels.map((channel, k) => [
        channel,
        { sandbox_listing: `${channel}-${p.index}`, tier: (p.index + k) % 3 === 0 ? 'preferred' : 'standard' },
      ]),
    ),
  };
}
