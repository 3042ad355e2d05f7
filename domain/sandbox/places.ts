/**
 * Where the sandbox catalogue's properties are: six countries in four continents' worth of zones
 * (Europe, Asia, America), each with its currency, its source language, a few cities and the
 * words its texts are made of. Romania and Italy are there for their legal rules.
 */

export type SandboxLanguage = 'ro' | 'it' | 'es' | 'pt' | 'en';

export interface City {
  name: string;
  region: string;
  lat: number;
  lng: number;
  postalCode: string;
}

export interface Country {
  code: string;
  zone: string;
  currency: string;
  /** The source language of the country's texts (domain/catalogue/text.ts), then English. */
  languages: readonly SandboxLanguage[];
  /** A night for two in the currency's minor units, before the property type's factor. */
  basePrice: number;
  cities: readonly City[];
  streets: readonly string[];
  surnames: readonly string[];
}

export const COUNTRIES: readonly Country[] = [
  {
    code: 'RO',
    zone: 'Europe/Bucharest',
    currency: 'RON',
    languages: ['ro', 'en'],
    basePrice: 32_000,
    cities: [
      { name: 'Brașov', region: 'Brașov', lat: 45.6427, lng: 25.5887, postalCode: '500030' },
      { name: 'Sibiu', region: 'Sibiu', lat: 45.7983, lng: 24.1256, postalCode: '550163' },
      { name: 'Constanța', region: 'Constanța', lat: 44.1598, lng: 28.6348, postalCode: '900178' },
      { name: 'Cluj-Napoca', region: 'Cluj', lat: 46.7712, lng: 23.6236, postalCode: '400001' },
    ],
    streets: ['Strada Republicii', 'Strada Mureșenilor', 'Strada Lungă', 'Strada Castelului'],
    surnames: ['Popescu', 'Ionescu', 'Dumitrescu', 'Stan', 'Munteanu', 'Constantin'],
  },
  {
    code: 'IT',
    zone: 'Europe/Rome',
    currency: 'EUR',
    languages: ['it', 'en'],
    basePrice: 11_000,
    cities: [
      { name: 'Firenze', region: 'Toscana', lat: 43.7696, lng: 11.2558, postalCode: '50122' },
      { name: 'Bologna', region: 'Emilia-Romagna', lat: 44.4949, lng: 11.3426, postalCode: '40121' },
      { name: 'Napoli', region: 'Campania', lat: 40.8518, lng: 14.2681, postalCode: '80132' },
      { name: 'Lecce', region: 'Puglia', lat: 40.3515, lng: 18.175, postalCode: '73100' },
    ],
    streets: ['Via Roma', 'Via Garibaldi', 'Via dei Mille', 'Corso Vittorio Emanuele'],
    surnames: ['Rossi', 'Bianchi', 'Esposito', 'Romano', 'Colombo', 'Ricci'],
  },
  {
    code: 'ES',
    zone: 'Europe/Madrid',
    currency: 'EUR',
    languages: ['es', 'en'],
    basePrice: 9_500,
    cities: [
      { name: 'Sevilla', region: 'Andalucía', lat: 37.3891, lng: -5.9845, postalCode: '41001' },
      { name: 'Valencia', region: 'Comunidad Valenciana', lat: 39.4699, lng: -0.3763, postalCode: '46001' },
      { name: 'Granada', region: 'Andalucía', lat: 37.1773, lng: -3.5986, postalCode: '18001' },
    ],
    streets: ['Calle Mayor', 'Calle Real', 'Avenida de la Constitución', 'Calle Sierpes'],
    surnames: ['García', 'Martínez', 'López', 'Sánchez', 'Ortega', 'Navarro'],
  },
  {
    code: 'PT',
    zone: 'Europe/Lisbon',
    currency: 'EUR',
    languages: ['pt', 'en'],
    basePrice: 8_500,
    cities: [
      { name: 'Lisboa', region: 'Lisboa', lat: 38.7223, lng: -9.1393, postalCode: '1100-148' },
      { name: 'Porto', region: 'Porto', lat: 41.1579, lng: -8.6291, postalCode: '4000-322' },
      { name: 'Lagos', region: 'Faro', lat: 37.1028, lng: -8.6731, postalCode: '8600-315' },
    ],
    streets: ['Rua Augusta', 'Rua das Flores', 'Rua de Santa Catarina', 'Avenida da Liberdade'],
    surnames: ['Silva', 'Santos', 'Ferreira', 'Pereira', 'Costa', 'Oliveira'],
  },
  {
    code: 'JP',
    zone: 'Asia/Tokyo',
    currency: 'JPY',
    languages: ['en'],
    basePrice: 16_000,
    cities: [
      { name: 'Kyoto', region: 'Kyoto', lat: 35.0116, lng: 135.7681, postalCode: '600-8216' },
      { name: 'Tokyo', region: 'Tokyo', lat: 35.6762, lng: 139.6503, postalCode: '150-0002' },
      { name: 'Sapporo', region: 'Hokkaido', lat: 43.0618, lng: 141.3545, postalCode: '060-0001' },
    ],
    streets: ['Shijo-dori', 'Karasuma-dori', 'Omotesando', 'Odori'],
    surnames: ['Sato', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Ito'],
  },
  {
    code: 'US',
    zone: 'America/New_York',
    currency: 'USD',
    languages: ['en'],
    basePrice: 14_000,
    cities: [
      { name: 'Brooklyn', region: 'New York', lat: 40.6782, lng: -73.9442, postalCode: '11201' },
      { name: 'Boston', region: 'Massachusetts', lat: 42.3601, lng: -71.0589, postalCode: '02108' },
      { name: 'Savannah', region: 'Georgia', lat: 32.0809, lng: -81.0912, postalCode: '31401' },
    ],
    streets: ['Main Street', 'Bedford Avenue', 'Beacon Street', 'Bull Street'],
    surnames: ['Smith', 'Johnson', 'Miller', 'Davis', 'Walker', 'Young'],
  },
];

/** What a location is, and the property types (room types) it sells. */
export const LOCATION_KINDS = [
  { category: 'guesthouse', types: ['guesthouse_room'], rooms: [2, 5] },
  { category: 'hotel', types: ['hotel_room'], rooms: [3, 6] },
  { category: 'building', types: ['apartment', 'studio'], rooms: [1, 3] },
  { category: 'house', types: ['house', 'villa', 'cabin'], rooms: [1, 1] },
] as const;

type Words = Readonly<Record<SandboxLanguage, string>>;

/** The words for a location's name, before the owner's surname. */
export const LOCATION_WORDS: Readonly<Record<string, Words>> = {
  guesthouse: { ro: 'Pensiunea', it: 'Locanda', es: 'Hostal', pt: 'Casa de Hóspedes', en: 'Guesthouse' },
  hotel: { ro: 'Hotel', it: 'Albergo', es: 'Hotel', pt: 'Hotel', en: 'Hotel' },
  building: { ro: 'Casa', it: 'Palazzo', es: 'Edificio', pt: 'Prédio', en: 'The' },
  house: { ro: 'Vila', it: 'Villa', es: 'Casa', pt: 'Quinta', en: 'Cottage' },
};

export const TYPE_WORDS: Readonly<Record<string, Words>> = {
  guesthouse_room: { ro: 'Cameră', it: 'Camera', es: 'Habitación', pt: 'Quarto', en: 'Room' },
  hotel_room: { ro: 'Cameră de hotel', it: 'Camera', es: 'Habitación', pt: 'Quarto', en: 'Hotel room' },
  apartment: { ro: 'Apartament', it: 'Appartamento', es: 'Apartamento', pt: 'Apartamento', en: 'Apartment' },
  studio: { ro: 'Garsonieră', it: 'Monolocale', es: 'Estudio', pt: 'Estúdio', en: 'Studio' },
  house: { ro: 'Casă', it: 'Casa', es: 'Casa', pt: 'Casa', en: 'House' },
  villa: { ro: 'Vilă', it: 'Villa', es: 'Villa', pt: 'Moradia', en: 'Villa' },
  cabin: { ro: 'Cabană', it: 'Baita', es: 'Cabaña', pt: 'Cabana', en: 'Cabin' },
};

/** A room type's second word: what tells the rooms of one location apart. */
export const VARIANT_WORDS: readonly Words[] = [
  { ro: 'dublă', it: 'doppia', es: 'doble', pt: 'duplo', en: 'double' },
  { ro: 'de familie', it: 'familiare', es: 'familiar', pt: 'familiar', en: 'family' },
  { ro: 'superioară', it: 'superiore', es: 'superior', pt: 'superior', en: 'superior' },
  { ro: 'cu vedere', it: 'con vista', es: 'con vistas', pt: 'com vista', en: 'with a view' },
];

/** A description: a sentence naming the type and the city, and one saying what is included. */
export const DESCRIPTIONS: Readonly<Record<SandboxLanguage, (type: string, city: string) => string>> = {
  ro: (type, city) =>
    `${type} liniștită în ${city}, aproape de centrul vechi. Lenjerie, prosoape și internet fără fir incluse.`,
  it: (type, city) => `${type} tranquilla a ${city}, vicino al centro storico. Biancheria e asciugamani inclusi.`,
  es: (type, city) => `${type} tranquila en ${city}, cerca del casco antiguo. Ropa de cama y toallas incluidas.`,
  pt: (type, city) => `${type} tranquilo em ${city}, perto do centro histórico. Roupa de cama e toalhas incluídas.`,
  en: (type, city) => `A quiet ${type.toLowerCase()} in ${city}, close to the old centre. Linen and towels included.`,
};

/** Photo captions by room label. */
export const CAPTIONS: Readonly<Record<string, Words>> = {
  bedroom: { ro: 'Dormitorul', it: 'La camera da letto', es: 'El dormitorio', pt: 'O quarto', en: 'The bedroom' },
  living: { ro: 'Livingul', it: 'Il soggiorno', es: 'El salón', pt: 'A sala', en: 'The living room' },
  kitchen: { ro: 'Bucătăria', it: 'La cucina', es: 'La cocina', pt: 'A cozinha', en: 'The kitchen' },
  bathroom: { ro: 'Baia', it: 'Il bagno', es: 'El baño', pt: 'A casa de banho', en: 'The bathroom' },
  exterior: { ro: 'Fațada', it: 'La facciata', es: 'La fachada', pt: 'A fachada', en: 'The front' },
  view: { ro: 'Priveliștea', it: 'La vista', es: 'Las vistas', pt: 'A vista', en: 'The view' },
  terrace: { ro: 'Terasa', it: 'La terrazza', es: 'La terraza', pt: 'O terraço', en: 'The terrace' },
  garden: { ro: 'Grădina', it: 'Il giardino', es: 'El jardín', pt: 'O jardim', en: 'The garden' },
};

export const PLAN_WORDS = {
  flexible: {
    ro: 'Tarif flexibil',
    it: 'Tariffa flessibile',
    es: 'Tarifa flexible',
    pt: 'Tarifa flexível',
    en: 'Flexible rate',
  },
  nonRefundable: {
    ro: 'Tarif nerambursabil',
    it: 'Tariffa non rimborsabile',
    es: 'Tarifa no reembolsable',
    pt: 'Tarifa não reembolsável',
    en: 'Non-refundable rate',
  },
  breakfast: {
    ro: 'Cu mic dejun',
    it: 'Con colazione',
    es: 'Con desayuno',
    pt: 'Com pequeno-almoço',
    en: 'Breakfast included',
  },
} as const satisfies Record<string, Words>;

/** The text map of `words` in the country's languages. */
export function textIn(languages: readonly SandboxLanguage[], words: (language: SandboxLanguage) => string) {
  return Object.fromEntries(languages.map((language) => [language, words(language)]));
}
