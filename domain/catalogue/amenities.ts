/**
 * The amenity catalogue served at `/amenities`. A code is a lowercase word, underscores allowed
 * (`^[a-z][a-z0-9_]*$`); it is the amenity's id and is never renamed or reused.
 *
 * OpenTravel codes are exact equivalents only, from the HAC (Hotel Amenity Code) list, or the RMA
 * (Room Amenity Type) list for things inside the unit. `ota_code` is the first of `ota_codes`
 * (HAC preferred); an amenity with no exact OpenTravel equivalent has none rather than a guess.
 */
export const AMENITY_CATEGORIES = [
  'general',
  'internet',
  'parking',
  'kitchen',
  'bathroom',
  'bedroom',
  'laundry',
  'climate',
  'entertainment',
  'outdoor',
  'wellness',
  'family',
  'accessibility',
  'safety',
  'services',
] as const;
export type AmenityCategory = (typeof AMENITY_CATEGORIES)[number];

export const AMENITY_LANGUAGES = ['en', 'ro', 'it', 'es', 'de', 'fr'] as const;
export type AmenityLanguage = (typeof AMENITY_LANGUAGES)[number];

export const AMENITY_CODE_PATTERN = /^[a-z][a-z0-9_]*$/;

export interface OtaCode {
  list: 'HAC' | 'RMA';
  code: number;
}

export interface AmenityDefinition {
  code: string;
  category: AmenityCategory;
  name: Readonly<Record<AmenityLanguage, string>>;
  ota_code: OtaCode | null;
  ota_codes: readonly OtaCode[];
}

type Names = readonly [en: string, ro: string, it: string, es: string, de: string, fr: string];
type Codes = ReadonlyArray<readonly [OtaCode['list'], number]>;

function amenity(code: string, category: AmenityCategory, names: Names, codes: Codes): AmenityDefinition {
  const [en, ro, it, es, de, fr] = names;
  const otaCodes = codes.map(([list, value]) => ({ list, code: value }));
  return { code, category, name: { en, ro, it, es, de, fr }, ota_code: otaCodes[0] ?? null, ota_codes: otaCodes };
}

export const AMENITIES: readonly AmenityDefinition[] = [
  amenity(
    'wifi',
    'internet',
    ['Wi-Fi', 'Wi-Fi', 'Wi-Fi', 'Wi-Fi', 'WLAN', 'Wi-Fi'],
    [
      ['HAC', 344],
      ['RMA', 123],
    ],
  ),
  amenity(
    'wired_internet',
    'internet',
    [
      'Wired internet',
      'Internet prin cablu',
      'Internet via cavo',
      'Internet por cable',
      'Internet über Kabel',
      'Internet filaire',
    ],
    [
      ['HAC', 343],
      ['RMA', 51],
    ],
  ),
  amenity(
    'workspace',
    'general',
    [
      'Dedicated workspace',
      'Spațiu de lucru dedicat',
      'Spazio di lavoro dedicato',
      'Zona de trabajo',
      'Arbeitsplatz',
      'Espace de travail dédié',
    ],
    [['RMA', 28]],
  ),
  amenity(
    'parking',
    'parking',
    ['Parking', 'Parcare', 'Parcheggio', 'Aparcamiento', 'Parkplatz', 'Parking'],
    [
      ['HAC', 68],
      ['HAC', 64],
    ],
  ),
  amenity(
    'free_parking',
    'parking',
    [
      'Free parking',
      'Parcare gratuită',
      'Parcheggio gratuito',
      'Aparcamiento gratuito',
      'Kostenloser Parkplatz',
      'Parking gratuit',
    ],
    [['HAC', 42]],
  ),
  amenity(
    'street_parking',
    'parking',
    [
      'Street parking',
      'Parcare pe stradă',
      'Parcheggio in strada',
      'Aparcamiento en la calle',
      'Parken an der Straße',
      'Stationnement dans la rue',
    ],
    [['HAC', 186]],
  ),
  amenity('garage', 'parking', ['Garage', 'Garaj', 'Garage', 'Garaje', 'Garage', 'Garage'], [['HAC', 53]]),
  amenity(
    'secure_parking',
    'parking',
    [
      'Secured parking',
      'Parcare securizată',
      'Parcheggio custodito',
      'Aparcamiento vigilado',
      'Bewachter Parkplatz',
      'Parking sécurisé',
    ],
    [['HAC', 230]],
  ),
  amenity(
    'ev_charger',
    'parking',
    [
      'EV charging station',
      'Stație de încărcare pentru mașini electrice',
      'Stazione di ricarica per auto elettriche',
      'Punto de carga para vehículos eléctricos',
      'Ladestation für Elektroautos',
      'Borne de recharge pour véhicules électriques',
    ],
    [['HAC', 316]],
  ),
  amenity(
    'kitchen',
    'kitchen',
    ['Kitchen', 'Bucătărie', 'Cucina', 'Cocina', 'Küche', 'Cuisine'],
    [
      ['RMA', 59],
      ['RMA', 47],
    ],
  ),
  amenity(
    'kitchenette',
    'kitchen',
    ['Kitchenette', 'Chicinetă', 'Angolo cottura', 'Zona de cocina', 'Kochnische', 'Kitchenette'],
    [
      ['HAC', 262],
      ['RMA', 61],
    ],
  ),
  amenity(
    'refrigerator',
    'kitchen',
    ['Refrigerator', 'Frigider', 'Frigorifero', 'Frigorífico', 'Kühlschrank', 'Réfrigérateur'],
    [['RMA', 88]],
  ),
  amenity(
    'microwave',
    'kitchen',
    ['Microwave', 'Cuptor cu microunde', 'Forno a microonde', 'Microondas', 'Mikrowelle', 'Micro-ondes'],
    [['RMA', 68]],
  ),
  amenity('oven', 'kitchen', ['Oven', 'Cuptor', 'Forno', 'Horno', 'Backofen', 'Four'], [['RMA', 77]]),
  amenity(
    'stove',
    'kitchen',
    ['Stove', 'Aragaz', 'Piano cottura', 'Placa de cocina', 'Herd', 'Plaques de cuisson'],
    [['RMA', 105]],
  ),
  amenity(
    'dishwasher',
    'kitchen',
    ['Dishwasher', 'Mașină de spălat vase', 'Lavastoviglie', 'Lavavajillas', 'Geschirrspüler', 'Lave-vaisselle'],
    [['RMA', 32]],
  ),
  amenity(
    'coffee_maker',
    'kitchen',
    ['Coffee maker', 'Cafetieră', 'Macchina del caffè', 'Cafetera', 'Kaffeemaschine', 'Cafetière'],
    [['RMA', 19]],
  ),
  amenity(
    'kettle',
    'kitchen',
    [
      'Electric kettle',
      'Fierbător electric',
      'Bollitore elettrico',
      'Hervidor de agua',
      'Wasserkocher',
      'Bouilloire électrique',
    ],
    [],
  ),
  amenity(
    'toaster',
    'kitchen',
    ['Toaster', 'Prăjitor de pâine', 'Tostapane', 'Tostadora', 'Toaster', 'Grille-pain'],
    [['RMA', 167]],
  ),
  amenity(
    'cookware',
    'kitchen',
    [
      'Cookware and tableware',
      'Vase și tacâmuri',
      'Pentole e stoviglie',
      'Utensilios de cocina y vajilla',
      'Kochgeschirr und Geschirr',
      'Ustensiles de cuisine et vaisselle',
    ],
    [
      ['RMA', 82],
      ['RMA', 98],
      ['RMA', 261],
    ],
  ),
  amenity(
    'private_bathroom',
    'bathroom',
    [
      'Private bathroom',
      'Baie privată',
      'Bagno privato',
      'Baño privado',
      'Eigenes Badezimmer',
      'Salle de bains privative',
    ],
    [
      ['HAC', 263],
      ['RMA', 85],
    ],
  ),
  amenity(
    'bathtub',
    'bathroom',
    ['Bathtub', 'Cadă', 'Vasca da bagno', 'Bañera', 'Badewanne', 'Baignoire'],
    [['RMA', 13]],
  ),
  amenity('shower', 'bathroom', ['Shower', 'Duș', 'Doccia', 'Ducha', 'Dusche', 'Douche'], [['RMA', 142]]),
  amenity(
    'hair_dryer',
    'bathroom',
    ['Hair dryer', 'Uscător de păr', 'Asciugacapelli', 'Secador de pelo', 'Haartrockner', 'Sèche-cheveux'],
    [
      ['HAC', 240],
      ['RMA', 50],
    ],
  ),
  amenity(
    'toiletries',
    'bathroom',
    [
      'Free toiletries',
      'Articole de toaletă gratuite',
      'Set di cortesia',
      'Artículos de aseo gratuitos',
      'Kostenlose Pflegeprodukte',
      'Articles de toilette gratuits',
    ],
    [['RMA', 11]],
  ),
  amenity('bidet', 'bathroom', ['Bidet', 'Bideu', 'Bidet', 'Bidé', 'Bidet', 'Bidet'], [['RMA', 16]]),
  amenity(
    'iron',
    'bedroom',
    [
      'Iron and ironing board',
      'Fier și masă de călcat',
      'Ferro e asse da stiro',
      'Plancha y tabla de planchar',
      'Bügeleisen und Bügelbrett',
      'Fer et planche à repasser',
    ],
    [
      ['HAC', 241],
      ['RMA', 55],
      ['RMA', 56],
    ],
  ),
  amenity(
    'blackout_curtains',
    'bedroom',
    [
      'Blackout curtains',
      'Draperii opace',
      'Tende oscuranti',
      'Cortinas opacas',
      'Verdunkelungsvorhänge',
      'Rideaux occultants',
    ],
    [['RMA', 264]],
  ),
  amenity(
    'soundproofing',
    'bedroom',
    ['Soundproofing', 'Izolare fonică', 'Insonorizzazione', 'Insonorización', 'Schallisolierung', 'Insonorisation'],
    [['RMA', 144]],
  ),
  amenity(
    'washing_machine',
    'laundry',
    ['Washing machine', 'Mașină de spălat rufe', 'Lavatrice', 'Lavadora', 'Waschmaschine', 'Lave-linge'],
    [['RMA', 149]],
  ),
  amenity(
    'dryer',
    'laundry',
    ['Tumble dryer', 'Uscător de rufe', 'Asciugatrice', 'Secadora', 'Wäschetrockner', 'Sèche-linge'],
    [['RMA', 149]],
  ),
  amenity(
    'laundry_service',
    'laundry',
    [
      'Laundry service',
      'Serviciu de spălătorie',
      'Servizio lavanderia',
      'Servicio de lavandería',
      'Wäscheservice',
      'Service de blanchisserie',
    ],
    [['HAC', 58]],
  ),
  amenity(
    'shared_laundry',
    'laundry',
    [
      'Shared laundry room',
      'Spălătorie comună',
      'Lavanderia comune',
      'Lavandería compartida',
      'Gemeinschaftswaschraum',
      'Laverie commune',
    ],
    [
      ['HAC', 168],
      ['HAC', 21],
    ],
  ),
  amenity(
    'air_conditioning',
    'climate',
    ['Air conditioning', 'Aer condiționat', 'Aria condizionata', 'Aire acondicionado', 'Klimaanlage', 'Climatisation'],
    [
      ['HAC', 5],
      ['RMA', 2],
    ],
  ),
  amenity(
    'heating',
    'climate',
    ['Heating', 'Încălzire', 'Riscaldamento', 'Calefacción', 'Heizung', 'Chauffage'],
    [['HAC', 242]],
  ),
  amenity('fireplace', 'climate', ['Fireplace', 'Șemineu', 'Camino', 'Chimenea', 'Kamin', 'Cheminée'], [['RMA', 41]]),
  amenity(
    'ceiling_fan',
    'climate',
    [
      'Ceiling fan',
      'Ventilator de tavan',
      'Ventilatore a soffitto',
      'Ventilador de techo',
      'Deckenventilator',
      'Ventilateur de plafond',
    ],
    [['RMA', 157]],
  ),
  amenity(
    'tv',
    'entertainment',
    ['TV', 'Televizor', 'TV', 'Televisión', 'Fernseher', 'Télévision'],
    [
      ['RMA', 251],
      ['RMA', 20],
    ],
  ),
  amenity(
    'cable_tv',
    'entertainment',
    [
      'Cable or satellite TV',
      'Televiziune prin cablu sau satelit',
      'TV via cavo o satellitare',
      'Televisión por cable o satélite',
      'Kabel- oder Satellitenfernsehen',
      'Télévision par câble ou satellite',
    ],
    [
      ['RMA', 18],
      ['RMA', 210],
    ],
  ),
  amenity(
    'game_console',
    'entertainment',
    ['Game console', 'Consolă de jocuri', 'Console per videogiochi', 'Videoconsola', 'Spielkonsole', 'Console de jeux'],
    [
      ['HAC', 245],
      ['RMA', 254],
    ],
  ),
  amenity(
    'game_room',
    'entertainment',
    ['Game room', 'Sală de jocuri', 'Sala giochi', 'Sala de juegos', 'Spielzimmer', 'Salle de jeux'],
    [['HAC', 44]],
  ),
  amenity('balcony', 'outdoor', ['Balcony', 'Balcon', 'Balcone', 'Balcón', 'Balkon', 'Balcon'], [['RMA', 7]]),
  amenity('terrace', 'outdoor', ['Terrace', 'Terasă', 'Terrazza', 'Terraza', 'Terrasse', 'Terrasse'], [['RMA', 7]]),
  amenity('garden', 'outdoor', ['Garden', 'Grădină', 'Giardino', 'Jardín', 'Garten', 'Jardin'], []),
  amenity(
    'bbq_grill',
    'outdoor',
    ['Barbecue grill', 'Grătar', 'Barbecue', 'Barbacoa', 'Grill', 'Barbecue'],
    [
      ['HAC', 118],
      ['HAC', 9],
      ['RMA', 8],
    ],
  ),
  amenity(
    'pool',
    'outdoor',
    ['Swimming pool', 'Piscină', 'Piscina', 'Piscina', 'Swimmingpool', 'Piscine'],
    [['HAC', 71]],
  ),
  amenity(
    'outdoor_pool',
    'outdoor',
    [
      'Outdoor pool',
      'Piscină exterioară',
      "Piscina all'aperto",
      'Piscina al aire libre',
      'Außenpool',
      'Piscine extérieure',
    ],
    [['HAC', 66]],
  ),
  amenity(
    'indoor_pool',
    'wellness',
    ['Indoor pool', 'Piscină interioară', 'Piscina coperta', 'Piscina cubierta', 'Hallenbad', 'Piscine intérieure'],
    [['HAC', 54]],
  ),
  amenity(
    'private_pool',
    'outdoor',
    ['Private pool', 'Piscină privată', 'Piscina privata', 'Piscina privada', 'Privatpool', 'Piscine privée'],
    [
      ['HAC', 253],
      ['RMA', 245],
    ],
  ),
  amenity(
    'beachfront',
    'outdoor',
    [
      'Beachfront',
      'Pe malul plajei',
      'Fronte spiaggia',
      'Primera línea de playa',
      'Direkt am Strand',
      'En bord de plage',
    ],
    [['HAC', 239]],
  ),
  amenity(
    'bicycle_rental',
    'outdoor',
    [
      'Bicycle rental',
      'Închiriere biciclete',
      'Noleggio biciclette',
      'Alquiler de bicicletas',
      'Fahrradverleih',
      'Location de vélos',
    ],
    [['HAC', 202]],
  ),
  amenity(
    'hot_tub',
    'wellness',
    ['Hot tub', 'Jacuzzi', 'Vasca idromassaggio', 'Bañera de hidromasaje', 'Whirlpool', 'Bain à remous'],
    [
      ['HAC', 55],
      ['HAC', 102],
      ['RMA', 57],
    ],
  ),
  amenity('sauna', 'wellness', ['Sauna', 'Saună', 'Sauna', 'Sauna', 'Sauna', 'Sauna'], [['HAC', 79]]),
  amenity(
    'gym',
    'wellness',
    ['Gym', 'Sală de fitness', 'Palestra', 'Gimnasio', 'Fitnessraum', 'Salle de sport'],
    [
      ['HAC', 35],
      ['HAC', 345],
      ['HAC', 48],
    ],
  ),
  amenity('spa', 'wellness', ['Spa', 'Spa', 'Spa', 'Spa', 'Spa', 'Spa'], [['HAC', 84]]),
  amenity('crib', 'family', ['Baby cot', 'Pătuț pentru copii', 'Culla', 'Cuna', 'Babybett', 'Lit bébé'], [['RMA', 26]]),
  amenity(
    'high_chair',
    'family',
    ['High chair', 'Scaun înalt pentru copii', 'Seggiolone', 'Trona', 'Hochstuhl', 'Chaise haute'],
    [],
  ),
  amenity(
    'playground',
    'family',
    ['Playground', 'Loc de joacă', 'Parco giochi', 'Parque infantil', 'Spielplatz', 'Aire de jeux'],
    [['HAC', 70]],
  ),
  amenity(
    'kids_activities',
    'family',
    [
      "Kids' activities",
      'Activități pentru copii',
      'Attività per bambini',
      'Actividades infantiles',
      'Kinderprogramm',
      'Activités pour enfants',
    ],
    [
      ['HAC', 235],
      ['HAC', 289],
    ],
  ),
  amenity(
    'wheelchair_accessible',
    'accessibility',
    [
      'Wheelchair accessible',
      'Accesibil pentru scaune cu rotile',
      'Accessibile in sedia a rotelle',
      'Accesible en silla de ruedas',
      'Rollstuhlgerecht',
      'Accessible en fauteuil roulant',
    ],
    [
      ['HAC', 101],
      ['HAC', 47],
    ],
  ),
  amenity(
    'elevator',
    'accessibility',
    ['Elevator', 'Lift', 'Ascensore', 'Ascensor', 'Aufzug', 'Ascenseur'],
    [['HAC', 33]],
  ),
  amenity(
    'accessible_parking',
    'accessibility',
    [
      'Accessible parking',
      'Parcare pentru persoane cu dizabilități',
      'Parcheggio per disabili',
      'Aparcamiento para personas con movilidad reducida',
      'Behindertenparkplatz',
      'Parking pour personnes handicapées',
    ],
    [['HAC', 116]],
  ),
  amenity(
    'grab_bars',
    'accessibility',
    [
      'Grab bars in bathroom',
      'Bare de sprijin în baie',
      'Maniglioni in bagno',
      'Barras de apoyo en el baño',
      'Haltegriffe im Bad',
      "Barres d'appui dans la salle de bains",
    ],
    [['RMA', 48]],
  ),
  amenity(
    'smoke_detector',
    'safety',
    [
      'Smoke detector',
      'Detector de fum',
      'Rilevatore di fumo',
      'Detector de humo',
      'Rauchmelder',
      'Détecteur de fumée',
    ],
    [['RMA', 100]],
  ),
  amenity(
    'carbon_monoxide_detector',
    'safety',
    [
      'Carbon monoxide detector',
      'Detector de monoxid de carbon',
      'Rilevatore di monossido di carbonio',
      'Detector de monóxido de carbono',
      'Kohlenmonoxidmelder',
      'Détecteur de monoxyde de carbone',
    ],
    [],
  ),
  amenity(
    'fire_extinguisher',
    'safety',
    ['Fire extinguisher', 'Extinctor', 'Estintore', 'Extintor', 'Feuerlöscher', 'Extincteur'],
    [],
  ),
  amenity(
    'first_aid_kit',
    'safety',
    [
      'First aid kit',
      'Trusă de prim ajutor',
      'Kit di pronto soccorso',
      'Botiquín de primeros auxilios',
      'Erste-Hilfe-Set',
      'Trousse de premiers secours',
    ],
    [],
  ),
  amenity('safe', 'safety', ['Safe', 'Seif', 'Cassaforte', 'Caja fuerte', 'Safe', 'Coffre-fort'], [['RMA', 92]]),
  amenity(
    'security_24h',
    'safety',
    [
      '24-hour security',
      'Pază non-stop',
      'Sorveglianza 24 ore su 24',
      'Seguridad 24 horas',
      '24-Stunden-Sicherheitsdienst',
      'Sécurité 24 h/24',
    ],
    [['HAC', 3]],
  ),
  amenity(
    'front_desk_24h',
    'services',
    [
      '24-hour front desk',
      'Recepție non-stop',
      'Reception 24 ore su 24',
      'Recepción 24 horas',
      '24-Stunden-Rezeption',
      'Réception ouverte 24 h/24',
    ],
    [['HAC', 1]],
  ),
  amenity(
    'self_check_in',
    'services',
    [
      'Self check-in',
      'Check-in independent',
      'Check-in autonomo',
      'Llegada autónoma',
      'Self-Check-in',
      'Arrivée autonome',
    ],
    [],
  ),
  amenity(
    'luggage_storage',
    'services',
    [
      'Luggage storage',
      'Depozitare bagaje',
      'Deposito bagagli',
      'Consigna de equipaje',
      'Gepäckaufbewahrung',
      'Bagagerie',
    ],
    [['HAC', 201]],
  ),
  amenity(
    'daily_housekeeping',
    'services',
    [
      'Daily housekeeping',
      'Curățenie zilnică',
      'Pulizia giornaliera',
      'Limpieza diaria',
      'Tägliche Reinigung',
      'Ménage quotidien',
    ],
    [['HAC', 50]],
  ),
  amenity(
    'airport_shuttle',
    'services',
    [
      'Airport shuttle',
      'Transfer la aeroport',
      'Navetta aeroportuale',
      'Traslado al aeropuerto',
      'Flughafentransfer',
      'Navette aéroport',
    ],
    [['HAC', 282]],
  ),
  amenity(
    'restaurant',
    'services',
    ['Restaurant', 'Restaurant', 'Ristorante', 'Restaurante', 'Restaurant', 'Restaurant'],
    [['HAC', 76]],
  ),
  amenity('bar', 'services', ['Bar', 'Bar', 'Bar', 'Bar', 'Bar', 'Bar'], [['HAC', 165]]),
];

const BY_CODE: ReadonlyMap<string, AmenityDefinition> = new Map(AMENITIES.map((item) => [item.code, item]));

export function amenityByCode(code: string): AmenityDefinition | undefined {
  return BY_CODE.get(code);
}

export function isAmenityCode(code: string): boolean {
  return BY_CODE.has(code);
}

/**
 * The catalogue ships with the service. The first start of a deployment serves it with this
 * version and instant; later, an amenity added takes the instant of the start that first serves
 * it, one whose name, category or OTA codes changed takes a higher version and that instant
 * (`amenity.updated` to every channel), and one removed from AMENITIES is retired: a `deleted`
 * tombstone under `updated_since` and `amenity.deleted` to every channel (db/amenities.ts). A
 * retired code is never reused.
 */
export const AMENITY_CATALOGUE_RELEASE = { version: 1, updated_at: '2026-11-01T00:00:00Z' } as const;

/** The record served at `/amenities`, with the version and instant the deployment gave it. */
export function amenityRecord(
  definition: AmenityDefinition,
  release: { version: number; updated_at: string } = AMENITY_CATALOGUE_RELEASE,
) {
  return {
    id: definition.code,
    code: definition.code,
    status: 'active' as const,
    version: release.version,
    updated_at: release.updated_at,
    name: { ...definition.name },
    category: definition.category,
    ota_code: definition.ota_code && { ...definition.ota_code },
    ota_codes: definition.ota_codes.map((code) => ({ ...code })),
  };
}

/**
 * Everything a channel reads of an amenity but its id, status, version and instant, as one string
 * with its keys in a fixed order: a release that serves an amenity differently gives another one.
 */
export function amenityFingerprint(definition: AmenityDefinition): string {
  const { name, category, ota_code, ota_codes } = amenityRecord(definition);
  return JSON.stringify(sortedKeys({ name, category, ota_code, ota_codes }));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}
