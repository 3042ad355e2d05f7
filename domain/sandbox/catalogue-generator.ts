import type { z } from 'zod';
import type { DistributionInput, LocationInput, OrganizationInput, OwnerInput } from '../catalogue/source.ts';
import { localDate } from '../time.ts';
import { sandboxAvailability } from './availability-generator.ts';
import { COUNTRIES, LOCATION_KINDS, LOCATION_WORDS, type Country } from './places.ts';
import { streamOf, type Stream } from './random.ts';
import { generatedProperty, type PropertyBody } from './property-generator.ts';
import type { AvailabilityUpdate } from '../availability/nights.ts';

/**
 * A sandbox's generated catalogue: organizations, owners (companies and individuals), locations
 * with one or several room types in six countries and four continents' zones, properties that
 * between them carry every case the contract names, their distribution to the given channels, and
 * a year of nights. Pure and deterministic: the same options give the same writes, byte for byte,
 * so a second run through the platform's PUTs changes nothing. Every reference starts `sbx-`.
 */

export interface SandboxOptions {
  seed: number;
  properties: number;
  /** Channel names the properties are distributed to (each has its own `extensions` entry). */
  channels: readonly string[];
  /** The instant the catalogue is dated from (certificates, nights): each zone's local date of it. */
  anchor: Date;
}

export interface SandboxWrite {
  operationId: 'putOrganization' | 'putOwner' | 'putLocation' | 'putProperty' | 'putDistribution';
  ref: string;
  body: unknown;
}

export interface SandboxCatalogue {
  /** In dependency order: organizations, owners, locations, properties, distributions. */
  writes: SandboxWrite[];
  /** The nights' updates, each within one property's horizon, grouped by property. */
  availability: AvailabilityUpdate[];
}

export const SANDBOX_REF_PREFIX = 'sbx-';
/** Locations of one country per organization: even, so an owner's two locations share one. */
const LOCATIONS_PER_ORGANIZATION = 12;
/** Address visibility by `location index % 5`: the owner type's default, exact, then each radius. */
const VISIBILITIES = [null, 'exact', 200, 500, 1000] as const;

type OwnerBody = z.input<typeof OwnerInput>;
type LocationBody = z.input<typeof LocationInput>;

function owner(k: number, country: Country, organization: string, stream: Stream): OwnerBody {
  const surname = stream.pick(country.surnames);
  const city = stream.pick(country.cities);
  if (k % 3 !== 0)
    return {
      organization,
      type: 'individual',
      display_name: `${stream.pick(['A.', 'M.', 'E.', 'L.'])} ${surname}`,
      languages: [...country.languages],
    };
  return {
    organization,
    type: 'company',
    display_name: `${surname} Stays`,
    legal_form: country.code === 'RO' ? 'SRL' : country.code === 'IT' ? 'S.r.l.' : 'LLC',
    company: {
      legal_name: `${surname} Stays ${country.code === 'RO' ? 'SRL' : 'Ltd'}`,
      tax_id: `${country.code}${stream.int(10_000_000, 99_999_999)}`,
      trade_register_no: null,
      registered_office: {
        street: stream.pick(country.streets),
        number: String(stream.int(1, 120)),
        city: city.name,
        postal_code: city.postalCode,
        country: country.code,
      },
    },
    languages: [...country.languages],
  };
}

function location(
  j: number,
  country: Country,
  refs: { organization: string; owner: string },
  ownerBody: OwnerBody,
  category: string,
  stream: Stream,
): LocationBody {
  const city = stream.pick(country.cities);
  const visibility = VISIBILITIES[j % VISIBILITIES.length]!;
  const surname = ownerBody.display_name.split(' ').at(-1)!;
  return {
    organization: refs.organization,
    owner: refs.owner,
    name: `${LOCATION_WORDS[category]![country.languages[0]!]} ${surname}`,
    category,
    address: {
      country: country.code,
      region: city.region,
      city: city.name,
      street: stream.pick(country.streets),
      number: String(stream.int(1, 200)),
      postal_code: city.postalCode,
    },
    // Within a few kilometres of the city's centre, rounded as a host's map pin would be.
    geo: {
      lat: Math.round((city.lat + (stream.next() - 0.5) * 0.06) * 1e5) / 1e5,
      lng: Math.round((city.lng + (stream.next() - 0.5) * 0.06) * 1e5) / 1e5,
    },
    ...(visibility === null
      ? {}
      : visibility === 'exact'
        ? { address_visibility: 'exact' as const }
        : { address_visibility: 'approximate' as const, precision_m: visibility }),
    timezone: country.zone,
  };
}

/** The catalogue for `options`; `options.properties` properties exactly. */
export function generateSandboxCatalogue(options: SandboxOptions): SandboxCatalogue {
  const { seed, channels } = options;
  const organizations: [string, z.input<typeof OrganizationInput>][] = [];
  const ownerBodies = new Map<string, OwnerBody>();
  const locations: [string, LocationBody][] = [];
  const properties: [string, PropertyBody][] = [];
  const distributions: [string, z.input<typeof DistributionInput>][] = [];
  const availability: AvailabilityUpdate[] = [];
  const perCountry = new Map<string, number>();
  for (let j = 0; properties.length < options.properties; j += 1) {
    const country = COUNTRIES[j % COUNTRIES.length]!;
    const countryLocation = Math.floor(j / COUNTRIES.length);
    const stream = streamOf(seed, `location:${j}`);
    const organization = `${SANDBOX_REF_PREFIX}org-${country.code.toLowerCase()}-${Math.floor(countryLocation / LOCATIONS_PER_ORGANIZATION)}`;
    if (countryLocation % LOCATIONS_PER_ORGANIZATION === 0)
      organizations.push([
        organization,
        { name: `Sandbox ${country.code} Stays ${organizations.length + 1}`, country: country.code },
      ]);
    // An owner has two locations of one organization (LOCATIONS_PER_ORGANIZATION is even).
    const ownerKey = Math.floor(countryLocation / 2);
    const ownerRef = `${SANDBOX_REF_PREFIX}own-${country.code.toLowerCase()}-${ownerKey}`;
    if (countryLocation % 2 === 0)
      ownerBodies.set(ownerRef, owner(ownerKey, country, organization, streamOf(seed, `owner:${ownerRef}`)));
    const ownerBody = ownerBodies.get(ownerRef)!;
    const kind = LOCATION_KINDS[countryLocation % LOCATION_KINDS.length]!;
    const locationRef = `${SANDBOX_REF_PREFIX}loc-${j}`;
    const locationBody = location(j, country, { organization, owner: ownerRef }, ownerBody, kind.category, stream);
    locations.push([locationRef, locationBody]);
    const today = localDate(options.anchor, country.zone);
    const rooms = Math.min(stream.int(kind.rooms[0], kind.rooms[1]), options.properties - properties.length);
    for (let room = 0; room < rooms; room += 1) {
      const index = properties.length;
      const ref = `${SANDBOX_REF_PREFIX}prp-${j}-${room}`;
      const countryIndex = perCountry.get(country.code) ?? 0;
      perCountry.set(country.code, countryIndex + 1);
      const body = generatedProperty({
        seed,
        index,
        countryIndex,
        ref,
        room,
        country,
        type: kind.types[room % kind.types.length]!,
        location: { ref: locationRef, city: locationBody.address.city, name: locationBody.name },
        owner: ownerRef,
        channels,
        today,
      });
      properties.push([ref, body]);
      distributions.push([ref, { channels: distributedTo(index, channels) }]);
      availability.push(...sandboxAvailability(seed, ref, body, today));
    }
  }
  const writes = (operationId: SandboxWrite['operationId'], entries: [string, unknown][]): SandboxWrite[] =>
    entries.map(([ref, body]) => ({ operationId, ref, body }));
  return {
    writes: [
      ...writes('putOrganization', organizations),
      ...writes('putOwner', [...ownerBodies]),
      ...writes('putLocation', locations),
      ...writes('putProperty', properties),
      ...writes('putDistribution', distributions),
    ],
    availability,
  };
}

/** Every channel, but one property in five goes to one channel only (each in turn), so views differ. */
function distributedTo(index: number, channels: readonly string[]): string[] {
  if (channels.length > 1 && index % 5 === 4) return [channels[Math.floor(index / 5) % channels.length]!];
  return [...channels];
}
