import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
} from '../domain/catalogue/source.ts';

/**
 * The demo catalogue `npm run admin -- seed demo` writes through the platform write interface:
 * three organizations in Romania, Italy and Spain, their owners, locations and properties, and
 * the channels each property is distributed to. Deterministic: the same channels and `today`
 * give the same writes, so a repeated seed changes nothing.
 */

export interface DemoWrite {
  operationId: 'putOrganization' | 'putOwner' | 'putLocation' | 'putProperty' | 'putDistribution';
  ref: string;
  body: unknown;
}

export const DEMO_CHANNELS = { first: 'demo-travel', second: 'demo-stays' } as const;

type OrganizationBody = z.input<typeof OrganizationInput>;
type OwnerBody = z.input<typeof OwnerInput>;
type LocationBody = z.input<typeof LocationInput>;
type PropertyBody = z.input<typeof PropertyInput>;
type DistributionBody = z.input<typeof DistributionInput>;
type PhotoBody = NonNullable<PropertyBody['photos']>[number];
type RatePlanBody = PropertyBody['rate_plans'][number];
type TextMap = Record<string, string>;

const CDN = 'https://cdn.example.com/demo';

/** The date `days` after `date` (both `YYYY-MM-DD`), in UTC calendar arithmetic. */
export function addDays(date: string, days: number): string {
  const parsed = new Date(`${date}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(date) ||
    Number.isNaN(parsed.getTime()) ||
    parsed.toISOString().slice(0, 10) !== date
  ) {
    throw new RangeError(`not a date YYYY-MM-DD: ${date}`);
  }
  parsed.setUTCDate(parsed.getUTCDate() + days);
  return parsed.toISOString().slice(0, 10);
}

/** A stand-in checksum for a file the demo does not ship, derived from its url. */
function checksum(url: string): string {
  return `sha256:${createHash('sha256').update(url).digest('hex')}`;
}

function photo(
  folder: string,
  key: string,
  room: string | null,
  width: number,
  height: number,
  caption: TextMap | null,
): PhotoBody {
  const url = `${CDN}/${folder}/${key}.jpg`;
  return { key, url, content_type: 'image/jpeg', width, height, checksum: checksum(url), room, caption };
}

const redirect = (host: string, path: string): PropertyBody['booking'] => ({
  method: 'redirect',
  url: `https://${host}/${path}`,
  url_template: `https://${host}/${path}/book?adults={adults}&children={children}`,
});

// ---------------------------------------------------------------------------------------------
// Organizations and owners

const ORG_CARPATHIA = 'demo-org-carpathia';
const ORG_TOSCANA = 'demo-org-toscana';
const ORG_ANDALUCIA = 'demo-org-andalucia';

const organizations: [string, OrganizationBody][] = [
  [ORG_CARPATHIA, { name: 'Carpathia Demo Stays', country: 'RO' }],
  [ORG_TOSCANA, { name: 'Case Toscane Demo', country: 'IT' }],
  [ORG_ANDALUCIA, { name: 'Costa del Sol Demo Rentals', country: 'ES' }],
];

const OWNER_CASA_BRAN = 'demo-owner-casa-bran';
const OWNER_POPESCU = 'demo-owner-andrei-popescu';
const OWNER_ROSSI = 'demo-owner-giulia-rossi';
const OWNER_ORTEGA = 'demo-owner-carmen-ortega';

const casaBranLogo = `${CDN}/owners/casa-bran/logo.png`;

const owners: [string, OwnerBody][] = [
  [
    OWNER_CASA_BRAN,
    {
      organization: ORG_CARPATHIA,
      type: 'company',
      display_name: 'Pensiunea Casa Bran',
      legal_form: 'SRL',
      company: {
        legal_name: 'Casa Bran Turism SRL',
        tax_id: 'RO31245786',
        trade_register_no: 'J08/1234/2015',
        registered_office: {
          street: 'Strada General Traian Moșoiu',
          number: '24',
          city: 'Bran',
          county: 'Brașov',
          postal_code: '507025',
          country: 'RO',
        },
      },
      languages: ['ro', 'en', 'de'],
      logo: { url: casaBranLogo, content_type: 'image/png', checksum: checksum(casaBranLogo), width: 512, height: 512 },
    },
  ],
  [
    OWNER_POPESCU,
    { organization: ORG_CARPATHIA, type: 'individual', display_name: 'Andrei Popescu', languages: ['ro', 'en', 'fr'] },
  ],
  [
    OWNER_ROSSI,
    { organization: ORG_TOSCANA, type: 'individual', display_name: 'Giulia Rossi', languages: ['it', 'en'] },
  ],
  [
    OWNER_ORTEGA,
    { organization: ORG_ANDALUCIA, type: 'individual', display_name: 'Carmen Ortega', languages: ['es', 'en', 'de'] },
  ],
];

// ---------------------------------------------------------------------------------------------
// Locations

const LOC_CASA_BRAN = 'demo-loc-casa-bran';
const LOC_BRASOV = 'demo-loc-brasov-schei';
const LOC_FIRENZE = 'demo-loc-firenze-oltrarno';
const LOC_NERJA = 'demo-loc-nerja-almendros';

const locations: [string, LocationBody][] = [
  [
    LOC_CASA_BRAN,
    {
      organization: ORG_CARPATHIA,
      owner: OWNER_CASA_BRAN,
      name: 'Pensiunea Casa Bran',
      category: 'guesthouse',
      address: {
        country: 'RO',
        region: 'Brașov',
        city: 'Bran',
        street: 'Strada General Traian Moșoiu',
        number: '24',
        postal_code: '507025',
      },
      geo: { lat: 45.51632, lng: 25.36784 },
      address_visibility: 'exact',
      timezone: 'Europe/Bucharest',
    },
  ],
  [
    LOC_BRASOV,
    {
      organization: ORG_CARPATHIA,
      owner: OWNER_POPESCU,
      name: 'Casa din Șchei',
      category: 'building',
      address: {
        country: 'RO',
        region: 'Brașov',
        city: 'Brașov',
        street: 'Strada Prundului',
        number: '17',
        postal_code: '500123',
      },
      geo: { lat: 45.63781, lng: 25.58463 },
      address_visibility: 'approximate',
      precision_m: 200,
      timezone: 'Europe/Bucharest',
    },
  ],
  [
    LOC_FIRENZE,
    {
      organization: ORG_TOSCANA,
      owner: OWNER_ROSSI,
      name: 'Palazzo Serragli',
      category: 'building',
      address: {
        country: 'IT',
        region: 'Toscana',
        city: 'Firenze',
        street: 'Via dei Serragli',
        number: '42',
        postal_code: '50124',
      },
      geo: { lat: 43.76561, lng: 11.24598 },
      // No address_visibility: an individual owner's location is approximate by default.
      precision_m: 500,
      timezone: 'Europe/Rome',
    },
  ],
  [
    LOC_NERJA,
    {
      organization: ORG_ANDALUCIA,
      owner: OWNER_ORTEGA,
      name: 'Villa Los Almendros',
      category: 'house',
      address: {
        country: 'ES',
        region: 'Andalucía',
        city: 'Nerja',
        street: 'Camino de Frigiliana',
        number: '8',
        postal_code: '29780',
      },
      geo: { lat: 36.77218, lng: -3.87402 },
      address_visibility: 'approximate',
      precision_m: 1000,
      timezone: 'Europe/Madrid',
    },
  ],
];

// ---------------------------------------------------------------------------------------------
// Properties

const PROP_BRAN_DOUBLE = 'demo-prop-casa-bran-double';
const PROP_BRAN_FAMILY = 'demo-prop-casa-bran-family';
const PROP_BRAN_ATTIC = 'demo-prop-casa-bran-attic';
const PROP_BRASOV = 'demo-prop-brasov-schei-apartment';
const PROP_FIRENZE = 'demo-prop-firenze-oltrarno-apartment';
const PROP_NERJA = 'demo-prop-nerja-villa';

const CHILD_BANDS = [
  { age_from: 0, age_to: 2 },
  { age_from: 3, age_to: 11 },
];

/** The two plans every Casa Bran room sells: breakfast included, flexible or non-refundable. */
function casaBranPlans(): RatePlanBody[] {
  return [
    {
      key: 'flex-breakfast',
      name: { ro: 'Flexibil, cu mic dejun', en: 'Flexible, breakfast included', de: 'Flexibel, mit Frühstück' },
      meal_plan: 'breakfast',
      currency: 'RON',
      child_age_bands: CHILD_BANDS,
      cancellation: { refundable: true, free_until_days_before: 7, penalty: 'first_night', penalty_percent: null },
    },
    {
      key: 'nonref-breakfast',
      name: {
        ro: 'Nerambursabil, cu mic dejun',
        en: 'Non-refundable, breakfast included',
        de: 'Nicht erstattbar, mit Frühstück',
      },
      meal_plan: 'breakfast',
      currency: 'RON',
      lower_price_reasons: ['promo_code'],
      child_age_bands: CHILD_BANDS,
      cancellation: { refundable: false, free_until_days_before: null, penalty: 'full_stay', penalty_percent: null },
    },
  ];
}

/** Bran levies the tourist tax as a percentage of the accommodation price, paid on site. */
const BRAN_CITY_TAX: NonNullable<PropertyBody['fees']>[number] = {
  type: 'city_tax',
  basis: 'percent',
  percent_bp: 100,
  percent_of: 'accommodation_excluding_vat',
  per: 'stay',
  included_in_price: false,
  payable_at: 'property',
  exempts_children: null,
};

const CASA_BRAN_RULES: PropertyBody['house_rules'] = {
  smoking: false,
  pets: false,
  parties: false,
  quiet_hours: { from: '22:00', until: '08:00' },
};

const CASA_BRAN_AMENITIES = [
  'wifi',
  'free_parking',
  'private_bathroom',
  'shower',
  'hair_dryer',
  'toiletries',
  'tv',
  'heating',
  'garden',
  'terrace',
  'bbq_grill',
  'smoke_detector',
  'first_aid_kit',
  'luggage_storage',
];

function casaBranRoom(today: string, channels: { first: string; second: string }) {
  const legal: PropertyBody['legal'] = {
    classification: {
      certificate_number: 'BV-4521',
      category: 'pensiune turistică',
      rating_kind: 'flori',
      rating: 3,
      // Issued for years: valid through the end of the third calendar year from now.
      valid_until: `${Number(today.slice(0, 4)) + 3}-12-31`,
      country: 'RO',
    },
    registration_number: null,
    identifiers: [],
  };
  const common = {
    location: LOC_CASA_BRAN,
    owner: OWNER_CASA_BRAN,
    status: 'active' as const,
    type: 'guesthouse_room' as const,
    check_in: { from: '14:00', until: '22:00' },
    check_out: { until: '11:00' },
    rate_plans: casaBranPlans(),
    fees: [BRAN_CITY_TAX],
    city_tax_status: 'levied' as const,
    legal,
    elevator: false,
    house_rules: CASA_BRAN_RULES,
  };
  const folder = 'properties/casa-bran';
  const exterior = photo(folder, 'exterior-summer', 'exterior', 2400, 1600, {
    ro: 'Pensiunea vara, cu Castelul Bran în fundal',
    en: 'The guesthouse in summer, with Bran Castle behind',
    de: 'Die Pension im Sommer, im Hintergrund Schloss Bran',
  });

  const double: PropertyBody = {
    ...common,
    units: 4,
    name: {
      ro: 'Cameră dublă cu vedere spre castel',
      en: 'Double room with castle view',
      de: 'Doppelzimmer mit Blick auf das Schloss',
    },
    description: {
      ro: 'Cameră luminoasă la etajul întâi, cu pat dublu, mobilier din lemn de brad și fereastră spre Castelul Bran. Micul dejun tradițional se servește în sala de mese de la parter.',
      en: 'A bright first-floor room with a double bed, pine furniture and a window facing Bran Castle. A traditional breakfast is served in the ground-floor dining room.',
      de: 'Helles Zimmer im ersten Stock mit Doppelbett, Kiefernholzmöbeln und Fenster zum Schloss Bran. Das traditionelle Frühstück wird im Speisesaal im Erdgeschoss serviert.',
    },
    capacity: {
      max_guests: 3,
      max_adults: 2,
      max_children: 1,
      max_infants: 1,
      bedrooms: 1,
      bathrooms: 1,
      beds: [{ type: 'double', count: 1 }],
    },
    photos: [
      photo(folder, 'double-bedroom', 'bedroom', 2400, 1600, {
        ro: 'Camera dublă',
        en: 'The double room',
        de: 'Das Doppelzimmer',
      }),
      photo(folder, 'double-bathroom', 'bathroom', 1600, 2400, {
        ro: 'Baia cu duș',
        en: 'Bathroom with shower',
        de: 'Bad mit Dusche',
      }),
      exterior,
    ],
    area_sqm: 22,
    floor: 1,
    amenities: [...CASA_BRAN_AMENITIES, 'crib'],
    booking: redirect('book.casa-bran.example.com', 'rooms/double'),
    extensions: { [channels.first]: { promo_tier: 'gold' }, [channels.second]: { listing_group: 'b' } },
  };

  const family: PropertyBody = {
    ...common,
    units: 2,
    name: { ro: 'Cameră de familie', en: 'Family room', de: 'Familienzimmer', fr: 'Chambre familiale' },
    description: {
      ro: 'Cameră spațioasă pentru familii, cu un pat dublu și două paturi single, loc de joacă în grădină și pătuț pentru copii la cerere.',
      en: 'A spacious room for families, with a double bed and two single beds, a playground in the garden and a baby cot on request.',
      de: 'Geräumiges Familienzimmer mit einem Doppelbett und zwei Einzelbetten, Spielplatz im Garten und Babybett auf Anfrage.',
      fr: 'Chambre spacieuse pour les familles, avec un lit double et deux lits simples, une aire de jeux dans le jardin et un lit bébé sur demande.',
    },
    capacity: {
      max_guests: 4,
      max_adults: 4,
      max_children: 2,
      max_infants: 1,
      bedrooms: 1,
      bathrooms: 1,
      beds: [
        { type: 'double', count: 1 },
        { type: 'single', count: 2 },
      ],
    },
    photos: [
      photo(folder, 'family-bedroom', 'bedroom', 2400, 1600, {
        ro: 'Camera de familie',
        en: 'The family room',
        fr: 'La chambre familiale',
      }),
      photo(folder, 'garden-playground', 'garden', 2400, 1600, {
        ro: 'Locul de joacă din grădină',
        en: 'The playground in the garden',
        de: 'Der Spielplatz im Garten',
      }),
      exterior,
    ],
    area_sqm: 30,
    floor: 1,
    amenities: [...CASA_BRAN_AMENITIES, 'crib', 'high_chair', 'playground'],
    booking: redirect('book.casa-bran.example.com', 'rooms/family'),
  };

  const attic: PropertyBody = {
    ...common,
    units: 1,
    name: { ro: 'Suită la mansardă', en: 'Attic suite', de: 'Dachgeschoss-Suite' },
    description: {
      ro: 'Suită la mansardă cu grinzi de lemn, dormitor separat, living cu canapea extensibilă și șemineu. Potrivită pentru un cuplu sau o familie mică.',
      en: 'An attic suite under wooden beams, with a separate bedroom, a living room with a sofa bed and a fireplace. Suited to a couple or a small family.',
      de: 'Suite unter dem Dach mit Holzbalken, separatem Schlafzimmer, Wohnzimmer mit Schlafsofa und Kamin. Ideal für ein Paar oder eine kleine Familie.',
    },
    capacity: {
      max_guests: 4,
      max_adults: 3,
      max_children: 2,
      max_infants: 1,
      bedrooms: 1,
      bathrooms: 1.5,
      beds: [
        { type: 'king', count: 1 },
        { type: 'sofa_bed', count: 1 },
      ],
    },
    photos: [
      photo(folder, 'attic-living', 'living', 2400, 1600, {
        ro: 'Livingul cu șemineu',
        en: 'Living room with fireplace',
        de: 'Wohnzimmer mit Kamin',
      }),
      photo(folder, 'attic-bedroom', 'bedroom', 2400, 1600, {
        ro: 'Dormitorul de sub grinzi',
        en: 'The bedroom under the beams',
        de: 'Das Schlafzimmer unter den Balken',
      }),
      photo(folder, 'attic-bathroom', 'bathroom', 1600, 2400, {
        ro: 'Baia cu cadă',
        en: 'Bathroom with bathtub',
        de: 'Bad mit Badewanne',
      }),
      exterior,
    ],
    area_sqm: 38,
    floor: 2,
    amenities: [...CASA_BRAN_AMENITIES, 'fireplace', 'bathtub', 'kettle'],
    booking: redirect('book.casa-bran.example.com', 'rooms/attic'),
  };

  return { double, family, attic };
}

function brasovApartment(today: string): PropertyBody {
  const folder = 'properties/brasov-schei';
  return {
    location: LOC_BRASOV,
    owner: OWNER_POPESCU,
    status: 'active',
    type: 'apartment',
    units: 1,
    name: {
      ro: 'Apartament în Șchei, lângă Poarta Schei',
      en: 'Apartment in Schei, by the Schei Gate',
      fr: 'Appartement à Schei, près de la porte Schei',
    },
    description: {
      ro: 'Apartament cu două camere într-o casă veche din cartierul Șchei, la zece minute de mers pe jos de Piața Sfatului. Bucătărie complet utilată, mașină de spălat și acces independent cu cod.',
      en: 'A two-room apartment in an old house in the Schei quarter, a ten-minute walk from the Council Square. Fully equipped kitchen, washing machine and self check-in with a key code.',
      fr: 'Appartement de deux pièces dans une maison ancienne du quartier Schei, à dix minutes à pied de la place du Conseil. Cuisine équipée, lave-linge et arrivée autonome avec code.',
    },
    capacity: {
      max_guests: 4,
      max_adults: 4,
      max_children: 2,
      max_infants: 1,
      bedrooms: 1,
      bathrooms: 1,
      beds: [
        { type: 'queen', count: 1 },
        { type: 'sofa_bed', count: 1 },
      ],
    },
    photos: [
      photo(folder, 'living', 'living', 2400, 1600, {
        ro: 'Livingul cu canapea extensibilă',
        en: 'Living room with sofa bed',
        fr: 'Séjour avec canapé-lit',
      }),
      photo(folder, 'bedroom', 'bedroom', 2400, 1600, { ro: 'Dormitorul', en: 'The bedroom', fr: 'La chambre' }),
      photo(folder, 'kitchen', 'kitchen', 2400, 1600, { ro: 'Bucătăria', en: 'The kitchen', fr: 'La cuisine' }),
    ],
    check_in: { from: '15:00', until: '23:00' },
    check_out: { until: '10:00' },
    rate_plans: [
      {
        key: 'flexible',
        name: { ro: 'Tarif flexibil', en: 'Flexible rate', fr: 'Tarif flexible' },
        currency: 'RON',
        cancellation: { refundable: true, free_until_days_before: 14, penalty: 'percent', penalty_percent: 50 },
      },
    ],
    fees: [
      {
        type: 'cleaning',
        basis: 'fixed',
        amount: { amount: 8000, currency: 'RON' },
        per: 'stay',
        included_in_price: false,
        payable_at: 'booking',
      },
    ],
    city_tax_status: 'undeclared',
    legal: {
      classification: {
        certificate_number: 'BV-7736',
        category: 'apartament de închiriat',
        rating_kind: 'stele',
        rating: 3,
        // Expires soon: the host is renewing it.
        valid_until: addDays(today, 20),
        country: 'RO',
      },
      registration_number: null,
      identifiers: [],
    },
    booking: redirect('stay.schei-apartment.example.com', 'apartment'),
    area_sqm: 54,
    floor: 2,
    elevator: false,
    amenities: [
      'wifi',
      'kitchen',
      'refrigerator',
      'stove',
      'oven',
      'coffee_maker',
      'cookware',
      'washing_machine',
      'iron',
      'heating',
      'tv',
      'street_parking',
      'self_check_in',
      'smoke_detector',
    ],
    house_rules: {
      smoking: false,
      pets: true,
      parties: false,
      quiet_hours: { from: '22:00', until: '07:00' },
      min_age: 18,
    },
  };
}

function firenzeApartment(): PropertyBody {
  const folder = 'properties/firenze-oltrarno';
  return {
    location: LOC_FIRENZE,
    owner: OWNER_ROSSI,
    status: 'active',
    type: 'apartment',
    units: 1,
    name: { it: 'Appartamento in Oltrarno con vista sui tetti', en: 'Oltrarno apartment with rooftop views' },
    description: {
      it: 'Appartamento al terzo piano di un palazzo storico in Oltrarno, a pochi passi da Palazzo Pitti e dal Ponte Vecchio. Soggiorno con travi a vista, cucina attrezzata, camera matrimoniale e aria condizionata.',
      en: 'A third-floor apartment in a historic palazzo in Oltrarno, a short walk from Palazzo Pitti and the Ponte Vecchio. Living room with exposed beams, equipped kitchen, double bedroom and air conditioning.',
    },
    capacity: {
      max_guests: 3,
      max_adults: 3,
      max_children: 1,
      max_infants: 1,
      bedrooms: 1,
      bathrooms: 1,
      beds: [
        { type: 'double', count: 1 },
        { type: 'sofa_bed', count: 1 },
      ],
    },
    photos: [
      photo(folder, 'living', 'living', 2400, 1600, {
        it: 'Il soggiorno con travi a vista',
        en: 'The living room with exposed beams',
      }),
      photo(folder, 'bedroom', 'bedroom', 2400, 1600, { it: 'La camera matrimoniale', en: 'The double bedroom' }),
      photo(folder, 'bathroom', 'bathroom', 1600, 2400, { it: 'Il bagno con doccia', en: 'The bathroom with shower' }),
      photo(folder, 'view', 'view', 2400, 1600, {
        it: 'I tetti di Firenze dalla finestra',
        en: 'The rooftops of Florence from the window',
      }),
    ],
    check_in: { from: '15:00', until: '20:00' },
    check_out: { until: '10:30' },
    rate_plans: [
      {
        key: 'flexible',
        name: { it: 'Tariffa flessibile', en: 'Flexible rate' },
        currency: 'EUR',
        child_age_bands: [{ age_from: 0, age_to: 11 }],
        cancellation: { refundable: true, free_until_days_before: 5, penalty: 'first_night', penalty_percent: null },
      },
      {
        key: 'non-refundable',
        name: { it: 'Tariffa non rimborsabile', en: 'Non-refundable rate' },
        currency: 'EUR',
        child_age_bands: [{ age_from: 0, age_to: 11 }],
        cancellation: { refundable: false, free_until_days_before: null, penalty: 'full_stay', penalty_percent: null },
      },
    ],
    fees: [
      {
        type: 'cleaning',
        basis: 'fixed',
        amount: { amount: 6000, currency: 'EUR' },
        per: 'stay',
        included_in_price: false,
        payable_at: 'booking',
      },
      {
        type: 'city_tax',
        basis: 'fixed',
        amount: { amount: 550, currency: 'EUR' },
        per: 'guest_night',
        included_in_price: false,
        payable_at: 'property',
        max_nights: 7,
        exempts_children: true,
      },
    ],
    city_tax_status: 'levied',
    legal: {
      classification: null,
      registration_number: null,
      identifiers: [
        { scheme: 'it.cin', value: 'IT048017C2R7M4Q9KX', valid_until: null, issued_by: 'Ministero del Turismo' },
      ],
    },
    booking: redirect('prenota.palazzo-serragli.example.com', 'oltrarno'),
    area_sqm: 65,
    floor: 3,
    elevator: false,
    amenities: [
      'wifi',
      'air_conditioning',
      'heating',
      'kitchen',
      'dishwasher',
      'coffee_maker',
      'washing_machine',
      'hair_dryer',
      'bidet',
      'tv',
      'blackout_curtains',
      'smoke_detector',
      'first_aid_kit',
    ],
    house_rules: { smoking: false, pets: false, parties: false, quiet_hours: { from: '23:00', until: '08:00' } },
  };
}

function nerjaVilla(): PropertyBody {
  const folder = 'properties/nerja-almendros';
  return {
    location: LOC_NERJA,
    owner: OWNER_ORTEGA,
    status: 'active',
    type: 'villa',
    units: 1,
    name: {
      es: 'Villa Los Almendros con piscina privada',
      en: 'Villa Los Almendros with private pool',
      de: 'Villa Los Almendros mit privatem Pool',
    },
    description: {
      es: 'Villa andaluza entre almendros, sobre las colinas de Nerja, con vistas al mar, piscina privada, barbacoa y tres dormitorios. La playa de Burriana está a diez minutos en coche.',
      en: 'An Andalusian villa among almond trees in the hills above Nerja, with sea views, a private pool, a barbecue and three bedrooms. Burriana beach is a ten-minute drive away.',
      de: 'Andalusische Villa zwischen Mandelbäumen in den Hügeln über Nerja, mit Meerblick, privatem Pool, Grill und drei Schlafzimmern. Der Strand von Burriana ist zehn Autominuten entfernt.',
    },
    capacity: {
      max_guests: 7,
      max_adults: 6,
      max_children: 3,
      max_infants: 1,
      bedrooms: 3,
      bathrooms: 2,
      beds: [
        { type: 'king', count: 1 },
        { type: 'double', count: 1 },
        { type: 'single', count: 2 },
        { type: 'sofa_bed', count: 1 },
      ],
    },
    photos: [
      photo(folder, 'pool', 'pool', 2400, 1600, {
        es: 'La piscina privada con vistas al mar',
        en: 'The private pool with sea views',
      }),
      photo(folder, 'living', 'living', 2400, 1600, { es: 'El salón', en: 'The living room' }),
      photo(folder, 'bedroom-main', 'bedroom', 2400, 1600, { es: 'El dormitorio principal', en: 'The main bedroom' }),
      photo(folder, 'terrace', 'terrace', 2400, 1600, { es: 'La terraza al atardecer', en: 'The terrace at sunset' }),
    ],
    check_in: { from: '16:00', until: '21:00' },
    check_out: { until: '11:00' },
    rate_plans: [
      {
        key: 'flexible',
        name: { es: 'Tarifa flexible', en: 'Flexible rate' },
        currency: 'EUR',
        child_age_bands: [
          { age_from: 0, age_to: 1 },
          { age_from: 2, age_to: 12 },
        ],
        cancellation: { refundable: true, free_until_days_before: 30, penalty: 'percent', penalty_percent: 50 },
      },
      {
        key: 'non-refundable',
        name: { es: 'Tarifa no reembolsable', en: 'Non-refundable rate' },
        currency: 'EUR',
        child_age_bands: [
          { age_from: 0, age_to: 1 },
          { age_from: 2, age_to: 12 },
        ],
        cancellation: { refundable: false, free_until_days_before: null, penalty: 'full_stay', penalty_percent: null },
      },
    ],
    fees: [
      {
        type: 'cleaning',
        basis: 'fixed',
        amount: { amount: 15000, currency: 'EUR' },
        per: 'stay',
        included_in_price: false,
        payable_at: 'booking',
      },
    ],
    // Andalusia levies no tourist tax.
    city_tax_status: 'none',
    legal: {
      classification: null,
      registration_number: null,
      identifiers: [
        {
          scheme: 'es.ri',
          value: 'ESFCTU000029075000123456000000000000000VFT/MA/23456',
          valid_until: null,
          issued_by: 'Registro Único de Arrendamientos',
        },
      ],
    },
    booking: redirect('reservas.villa-almendros.example.com', 'villa'),
    area_sqm: 180,
    floor: 0,
    elevator: false,
    amenities: [
      'wifi',
      'air_conditioning',
      'private_pool',
      'outdoor_pool',
      'terrace',
      'garden',
      'bbq_grill',
      'free_parking',
      'kitchen',
      'dishwasher',
      'oven',
      'microwave',
      'washing_machine',
      'iron',
      'tv',
      'crib',
      'high_chair',
      'smoke_detector',
      'fire_extinguisher',
      'first_aid_kit',
    ],
    house_rules: {
      smoking: false,
      pets: true,
      parties: false,
      quiet_hours: { from: '23:00', until: '08:00' },
      min_age: 25,
    },
  };
}

// ---------------------------------------------------------------------------------------------

/** Writes in dependency order (organizations, owners, locations, properties, then distributions). `today` is YYYY-MM-DD (used to date the certificates: one valid for years, one expiring in ~20 days). */
export function demoCatalogue(channels: { first: string; second: string }, today: string): DemoWrite[] {
  addDays(today, 0); // rejects a malformed date
  const bran = casaBranRoom(today, channels);
  const properties: [string, PropertyBody][] = [
    [PROP_BRAN_DOUBLE, bran.double],
    [PROP_BRAN_FAMILY, bran.family],
    [PROP_BRAN_ATTIC, bran.attic],
    [PROP_BRASOV, brasovApartment(today)],
    [PROP_FIRENZE, firenzeApartment()],
    [PROP_NERJA, nerjaVilla()],
  ];
  const both = [channels.first, channels.second];
  const distributions: [string, DistributionBody][] = [
    [PROP_BRAN_DOUBLE, { channels: both }],
    [PROP_BRAN_FAMILY, { channels: both }],
    [PROP_BRAN_ATTIC, { channels: both }],
    [PROP_BRASOV, { channels: both }],
    [PROP_FIRENZE, { channels: [channels.first] }],
    [PROP_NERJA, { channels: [channels.second] }],
  ];
  // structuredClone: the shared pieces (plans, rules, photos) become independent bodies.
  const writes = (operationId: DemoWrite['operationId'], entries: [string, unknown][]): DemoWrite[] =>
    entries.map(([ref, body]) => ({ operationId, ref, body: structuredClone(body) }));
  return [
    ...writes('putOrganization', organizations),
    ...writes('putOwner', owners),
    ...writes('putLocation', locations),
    ...writes('putProperty', properties),
    ...writes('putDistribution', distributions),
  ];
}
