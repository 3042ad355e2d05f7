import { hmacSha256 } from './hmac.ts';

export const PRECISION_RADII = [200, 500, 1000] as const;
export type PrecisionRadius = (typeof PRECISION_RADII)[number];
export const DEFAULT_PRECISION_M: PrecisionRadius = 500;

export const ADDRESS_VISIBILITIES = ['exact', 'approximate'] as const;
export type AddressVisibility = (typeof ADDRESS_VISIBILITIES)[number];

export interface GeoPoint {
  lat: number;
  lng: number;
}

/**
 * The displaced point is never closer than this share of the radius, so an approximate point is
 * never (almost) the exact one.
 */
export const MIN_DISPLACEMENT_FRACTION = 0.2;

/**
 * Rounding to 6 decimals moves a point by up to ~8 cm; keeping the outer edge 1 m inside the
 * radius keeps the published point within `precision_m` after rounding.
 */
const ROUNDING_MARGIN_M = 1;

// WGS 84
const SEMI_MAJOR_AXIS_M = 6_378_137;
const ECCENTRICITY_SQUARED = 0.006_694_379_990_14;

export function isPrecisionRadius(value: unknown): value is PrecisionRadius {
  return PRECISION_RADII.includes(value as PrecisionRadius);
}

/** The contract names only `company`; any other owner type is treated as an individual. */
export function defaultAddressVisibility(ownerType: string): AddressVisibility {
  return ownerType === 'company' ? 'exact' : 'approximate';
}

/** Length of one degree of latitude and of longitude, in metres, at a latitude on WGS 84. */
export function metresPerDegree(latDeg: number): { lat: number; lng: number } {
  const phi = (latDeg * Math.PI) / 180;
  const w = Math.sqrt(1 - ECCENTRICITY_SQUARED * Math.sin(phi) ** 2);
  const meridional = (SEMI_MAJOR_AXIS_M * (1 - ECCENTRICITY_SQUARED)) / w ** 3;
  const primeVertical = SEMI_MAJOR_AXIS_M / w;
  const perRadian = Math.PI / 180;
  return { lat: meridional * perRadian, lng: primeVertical * Math.cos(phi) * perRadian };
}

/**
 * The approximate point of a location for a radius. It is derived from an HMAC keyed with the
 * service's secret, so it is the same on every read and for every channel, and the offset cannot
 * be recovered without the secret. The message covers the location key, the radius and the exact
 * point: a new radius moves the point once, and so does a corrected exact point. Were the exact
 * point left out, a channel that once held the exact point would learn the fixed offset and could
 * undo it on every later move.
 *
 * Distance is uniform by area over the ring between MIN_DISPLACEMENT_FRACTION x radius and the
 * radius; direction is uniform.
 */
export async function displacePoint(
  exact: GeoPoint,
  precisionM: PrecisionRadius,
  secret: Uint8Array,
  locationKey: string,
): Promise<GeoPoint> {
  if (!isPrecisionRadius(precisionM)) throw new RangeError(`displacePoint: unsupported radius ${String(precisionM)}`);
  if (!(Math.abs(exact.lat) <= 90) || !(Math.abs(exact.lng) <= 180)) {
    throw new RangeError('displacePoint: exact point out of range');
  }
  const message = ['geo-v1', locationKey, precisionM, exact.lat.toFixed(6), exact.lng.toFixed(6)].join('|');
  const digest = await hmacSha256(secret, message);
  const u = unitInterval(digest, 0);
  const v = unitInterval(digest, 6);

  const outer = precisionM - ROUNDING_MARGIN_M;
  const inner = precisionM * MIN_DISPLACEMENT_FRACTION;
  const distance = Math.sqrt(inner ** 2 + u * (outer ** 2 - inner ** 2));
  const bearing = 2 * Math.PI * v;

  const scale = metresPerDegree(exact.lat);
  const lat = clamp(exact.lat + (distance * Math.cos(bearing)) / scale.lat, -90, 90);
  // Within a few metres of a pole a degree of longitude has no length; keep longitude there.
  const lng = scale.lng > 1 ? wrapLongitude(exact.lng + (distance * Math.sin(bearing)) / scale.lng) : exact.lng;
  return { lat: round6(lat), lng: round6(lng) };
}

/** 48 bits of the digest as a number in [0, 1). */
function unitInterval(bytes: Uint8Array, offset: number): number {
  let value = 0;
  for (let i = 0; i < 6; i += 1) value = value * 256 + (bytes[offset + i] ?? 0);
  return value / 2 ** 48;
}

function wrapLongitude(lng: number): number {
  const wrapped = ((((lng + 180) % 360) + 360) % 360) - 180;
  return wrapped === -180 && lng > 0 ? 180 : wrapped;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round6(value: number): number {
  const rounded = Math.round(value * 1e6) / 1e6;
  return Object.is(rounded, -0) ? 0 : rounded;
}
