import type { z } from 'zod';
import type { Location, Owner, Property } from '../../api/schemas/catalogue.ts';
import type { Tombstone } from '../../api/schemas/records.ts';
import { cancellationText } from './cancellation.ts';
import { defaultAddressVisibility, DEFAULT_PRECISION_M, displacePoint, type GeoPoint } from './geo.ts';
import { legalProjection, type LegalRefusal } from './legal.ts';
import type { LocationInput, OwnerInput, PropertyInput } from './source.ts';
import type { ResourceStatus } from './status.ts';
import { ownValue } from '../own.ts';
import { chargedPer } from '../pricing/fee.ts';
import { isLanguageTag } from './text.ts';

/**
 * How one channel sees a source record. Bodies here carry `id` and `status` but not `version`
 * and `updated_at`: those are stamped by the writer when the body differs from what the channel
 * was last shown, so an invisible change never moves them.
 */

export type LiveStatus = Extract<ResourceStatus, 'active' | 'inactive'>;

/**
 * A record's body as its schema in the description states it (`api/schemas/catalogue.ts`, a type
 * import: the schemas are the contract, and a body that drops, misnames or mistypes a field of
 * theirs does not compile), less what the writer stamps, with one of our live statuses.
 */
type BodyOf<Schema extends z.ZodType> = Omit<z.output<Schema>, 'status' | 'version' | 'updated_at'> & {
  status: LiveStatus;
};
export type PropertyBody = BodyOf<typeof Property>;
export type LocationBody = BodyOf<typeof Location>;
export type OwnerBody = BodyOf<typeof Owner>;
/** A record the channel no longer sees: its id and status only (a `Tombstone` once stamped). */
export interface TombstoneBody {
  id: string;
  status: Exclude<ResourceStatus, LiveStatus>;
}
/** What the projector stores for one record of a channel's view. */
export type ProjectedBody = PropertyBody | LocationBody | OwnerBody | TombstoneBody;
/** A record as served, stamped (`presentResource`): one of the shapes the description's reads answer. */
export type PresentedResource =
  z.output<typeof Property> | z.output<typeof Location> | z.output<typeof Owner> | z.output<typeof Tombstone>;

/** The channel's ids for one property and everything it names. */
export interface PropertyIds {
  property: string;
  location: string;
  owner: string;
  photos: ReadonlyMap<string, string>;
  ratePlans: ReadonlyMap<string, string>;
}

export interface PropertyContext {
  channel: string;
  ids: PropertyIds;
  /** Country and zone of the property's location. */
  country: string;
  timezone: string;
  /** The property's local date, for legal validity. */
  today: string;
}

export type PropertyProjection =
  { publishable: true; body: PropertyBody } | { publishable: false; reason: LegalRefusal };

/** Languages a text map carries: well-formed tags only, in a stable order. */
function textMap(map: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(map)
      .filter(([language, text]) => isLanguageTag(language) && text.trim() !== '')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([language, text]) => [language, text.trim()]),
  );
}

function idOf(map: ReadonlyMap<string, string>, key: string): string {
  const id = map.get(key);
  if (id === undefined) throw new Error(`projection: no channel id for ${key}`);
  return id;
}

export function projectProperty(source: PropertyInput, context: PropertyContext): PropertyProjection {
  const legal = legalProjection({ country: context.country, ...source.legal }, context.today);
  if (!legal.publishable) return legal;
  const { ids } = context;
  const ownExtension = ownValue(source.extensions, context.channel);
  const body: PropertyBody = {
    id: ids.property,
    status: source.status,
    location_id: ids.location,
    owner_id: ids.owner,
    type: source.type,
    units: source.units,
    name: textMap(source.name),
    description: textMap(source.description),
    capacity: { ...source.capacity, beds: source.capacity.beds.map((bed) => ({ ...bed })) },
    photos: source.photos.map((photo, index) => ({
      id: idOf(ids.photos, photo.key),
      url: photo.url,
      content_type: photo.content_type,
      width: photo.width,
      height: photo.height,
      order: index + 1,
      checksum: photo.checksum,
      room: photo.room,
      caption: photo.caption === null ? null : textMap(photo.caption),
    })),
    check_in: { ...source.check_in },
    check_out: { ...source.check_out },
    rate_plans: source.rate_plans.map((plan) => ({
      id: idOf(ids.ratePlans, plan.key),
      name: textMap(plan.name),
      meal_plan: plan.meal_plan,
      currency: plan.currency,
      lower_price_reasons: [...plan.lower_price_reasons],
      child_age_bands: plan.child_age_bands.map((band) => ({ ...band })),
      cancellation: { ...plan.cancellation, text: cancellationText(plan.cancellation) },
    })),
    fees: source.fees.map((fee) => ({ ...fee, per: chargedPer(fee), amount: fee.amount && { ...fee.amount } })),
    city_tax_status: source.city_tax_status,
    legal: legal.legal,
    booking: { ...source.booking },
    timezone: context.timezone,
    area_sqm: source.area_sqm,
    floor: source.floor,
    elevator: source.elevator,
    amenities: [...source.amenities],
    house_rules: {
      ...source.house_rules,
      quiet_hours: source.house_rules.quiet_hours && { ...source.house_rules.quiet_hours },
    },
    extensions: ownExtension === undefined ? {} : { [context.channel]: structuredClone(ownExtension) },
  };
  return { publishable: true, body };
}

/**
 * The published form of a location's address and point, the same for every channel. An
 * approximate location loses street, number, building and postal code, and its point is
 * displaced within the radius by an HMAC of the server secret (see geo.ts).
 */
export interface PublishedPlace {
  address_visibility: 'exact' | 'approximate';
  address: LocationBody['address'];
  geo: GeoPoint & { precision_m?: number };
}

export async function publishedPlace(
  location: LocationInput,
  ownerType: string,
  secret: Uint8Array,
  locationKey: string,
): Promise<PublishedPlace> {
  const visibility = location.address_visibility ?? defaultAddressVisibility(ownerType);
  const { country, region, city, street, number, building, postal_code } = location.address;
  const area = { country, ...(region === undefined ? {} : { region }), city };
  if (visibility === 'exact') {
    const exact = { ...area, ...compact({ street, number, building, postal_code }) };
    return { address_visibility: 'exact', address: exact, geo: { lat: location.geo.lat, lng: location.geo.lng } };
  }
  const precision = location.precision_m ?? DEFAULT_PRECISION_M;
  const point = await displacePoint(location.geo, precision, secret, locationKey);
  return { address_visibility: 'approximate', address: area, geo: { ...point, precision_m: precision } };
}

export function projectLocation(
  location: LocationInput,
  place: PublishedPlace,
  id: string,
  status: LiveStatus,
): LocationBody {
  return {
    id,
    status,
    name: location.name,
    category: location.category,
    address_visibility: place.address_visibility,
    address: { ...place.address },
    geo: { ...place.geo },
    timezone: location.timezone,
  };
}

export function projectOwner(owner: OwnerInput, id: string, status: LiveStatus, connectedAt: string | null): OwnerBody {
  return {
    id,
    status,
    type: owner.type,
    display_name: owner.display_name,
    legal_form: owner.legal_form,
    company: owner.company && { ...owner.company, registered_office: { ...owner.company.registered_office } },
    languages: [...owner.languages],
    logo: owner.logo && { ...owner.logo },
    connected_at: connectedAt,
  };
}

/** Location and owner status from the properties naming them: a `deleted` property counts as gone, so only withdrawal remains. */
export function derivedStatus(propertyStatuses: readonly ResourceStatus[]): ResourceStatus | null {
  if (propertyStatuses.length === 0) return null;
  if (propertyStatuses.includes('active')) return 'active';
  if (propertyStatuses.includes('inactive')) return 'inactive';
  return 'withdrawn';
}

/** The fields that hold a value: each of them, optional. */
function compact<T extends Record<string, string | undefined>>(values: T): { [K in keyof T]?: string } {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ) as { [K in keyof T]?: string };
}

/**
 * JSON with object keys sorted, so two bodies compare equal exactly when they carry the same
 * data, whatever order their keys were built in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The served record: `id`, `status`, `version`, `updated_at` first; a tombstone is exactly those four. */
export function presentResource(body: ProjectedBody, version: number, updatedAt: string): PresentedResource {
  const { id, status, ...rest } = body;
  if (status === 'withdrawn' || status === 'deleted') return { id, status, version, updated_at: updatedAt };
  return { id, status, version, updated_at: updatedAt, ...rest };
}

/**
 * `presentResource` on a body's stored JSON text, spliced instead of parsed and re-serialised:
 * the projector stores `JSON.stringify(body)`, which opens with `id` and `status`, so the served
 * text is that opening, `version` and `updated_at`, then the stored rest as it is. A text that
 * does not open so is presented through a parse, with the same result.
 */
export function presentStoredResource(
  stored: string,
  id: string,
  status: ResourceStatus,
  version: number,
  updatedAt: string,
): string {
  // What JSON.stringify({ id, status }) and ({ id, status, version, updated_at }) write, without the objects.
  const opening = `{"id":${JSON.stringify(id)},"status":${JSON.stringify(status)}`;
  const head = `${opening},"version":${version},"updated_at":${JSON.stringify(updatedAt)}}`;
  if (stored.startsWith(opening)) {
    const rest = stored.slice(opening.length);
    if (status === 'withdrawn' || status === 'deleted' || rest === '}') return head;
    if (rest.startsWith(',"')) return head.slice(0, -1) + rest;
  }
  return JSON.stringify(presentResource(JSON.parse(stored) as ProjectedBody, version, updatedAt));
}
