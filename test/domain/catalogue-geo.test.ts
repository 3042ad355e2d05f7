import { describe, expect, test } from 'vitest';
import {
  DEFAULT_PRECISION_M,
  defaultAddressVisibility,
  displacePoint,
  isPrecisionRadius,
  metresPerDegree,
  MIN_DISPLACEMENT_FRACTION,
  PRECISION_RADII,
  type GeoPoint,
} from '../../domain/catalogue/geo.ts';

const SECRET = new TextEncoder().encode('geo-test-secret-0123456789abcdef');
const BUCHAREST: GeoPoint = { lat: 44.4268, lng: 26.1025 };

/** Local flat-earth distance with the ellipsoid's scale: accurate to centimetres within a km. */
function distanceM(a: GeoPoint, b: GeoPoint): number {
  const scale = metresPerDegree((a.lat + b.lat) / 2);
  let dLng = b.lng - a.lng;
  if (dLng > 180) dLng -= 360;
  if (dLng < -180) dLng += 360;
  return Math.hypot((b.lat - a.lat) * scale.lat, dLng * scale.lng);
}

function decimals(value: number): number {
  return value.toString().split('.')[1]?.length ?? 0;
}

describe('metresPerDegree', () => {
  // WGS 84 reference values (metres per degree of latitude and of longitude).
  test.each([
    [0, 110_574, 111_320],
    [15, 110_649, 107_551],
    [30, 110_852, 96_486],
    [45, 111_133, 78_847],
    [60, 111_412, 55_800],
    [75, 111_618, 28_902],
  ])('at %i degrees', (lat, perLat, perLng) => {
    const scale = metresPerDegree(lat);
    expect(Math.abs(scale.lat - perLat)).toBeLessThan(1.5);
    expect(Math.abs(scale.lng - perLng)).toBeLessThan(1.5);
  });
});

describe('displacePoint', () => {
  test.each(PRECISION_RADII)('stays within %i m and outside the minimum distance', async (radius) => {
    for (let i = 0; i < 200; i += 1) {
      const point = await displacePoint(BUCHAREST, radius, SECRET, `loc-${i}`);
      const d = distanceM(BUCHAREST, point);
      expect(d).toBeLessThanOrEqual(radius);
      expect(d).toBeGreaterThanOrEqual(radius * MIN_DISPLACEMENT_FRACTION - 0.2);
      expect(decimals(point.lat)).toBeLessThanOrEqual(6);
      expect(decimals(point.lng)).toBeLessThanOrEqual(6);
    }
  });

  test('the same inputs give the same point on every call', async () => {
    const first = await displacePoint(BUCHAREST, 500, SECRET, 'loc-1');
    const second = await displacePoint({ ...BUCHAREST }, 500, new Uint8Array(SECRET), 'loc-1');
    expect(second).toEqual(first);
  });

  test('each radius has its own point', async () => {
    const points = await Promise.all(PRECISION_RADII.map((r) => displacePoint(BUCHAREST, r, SECRET, 'loc-1')));
    expect(new Set(points.map((p) => `${p.lat},${p.lng}`)).size).toBe(3);
  });

  test.each([
    ['another location', BUCHAREST, 'loc-2', SECRET],
    ['another secret', BUCHAREST, 'loc-1', new TextEncoder().encode('another-secret-0123456789abcdef!')],
    ['a corrected exact point', { lat: 44.4269, lng: 26.1025 }, 'loc-1', SECRET],
  ] as const)('%s moves the point', async (_label, exact, key, secret) => {
    const base = await displacePoint(BUCHAREST, 500, SECRET, 'loc-1');
    const other = await displacePoint(exact, 500, secret, key);
    const offsetBase = { lat: base.lat - BUCHAREST.lat, lng: base.lng - BUCHAREST.lng };
    const offsetOther = { lat: other.lat - exact.lat, lng: other.lng - exact.lng };
    expect(
      distanceM({ lat: 0, lng: 0 }, { lat: offsetOther.lat - offsetBase.lat, lng: offsetOther.lng - offsetBase.lng }),
    ).toBeGreaterThan(1);
  });

  test('points are spread uniformly by area and direction', async () => {
    const radius = 1000;
    const samples = 2000;
    let inner = 0;
    const quadrants = [0, 0, 0, 0];
    for (let i = 0; i < samples; i += 1) {
      const point = await displacePoint(BUCHAREST, radius, SECRET, `spread-${i}`);
      if (distanceM(BUCHAREST, point) < radius / Math.SQRT2) inner += 1;
      const q = (point.lat >= BUCHAREST.lat ? 0 : 2) + (point.lng >= BUCHAREST.lng ? 0 : 1);
      quadrants[q] = (quadrants[q] ?? 0) + 1;
    }
    // Area share of the ring [0.2 R, R / sqrt 2] within [0.2 R, R]: (0.5 - 0.04) / (1 - 0.04).
    const expectedInner = (0.5 - MIN_DISPLACEMENT_FRACTION ** 2) / (1 - MIN_DISPLACEMENT_FRACTION ** 2);
    expect(Math.abs(inner / samples - expectedInner)).toBeLessThan(0.05);
    for (const count of quadrants) expect(Math.abs(count / samples - 0.25)).toBeLessThan(0.04);
  });

  test('wraps across the antimeridian', async () => {
    const exact = { lat: -16.5, lng: 179.9999 };
    for (let i = 0; i < 50; i += 1) {
      const point = await displacePoint(exact, 1000, SECRET, `fiji-${i}`);
      expect(point.lng).toBeGreaterThanOrEqual(-180);
      expect(point.lng).toBeLessThanOrEqual(180);
      expect(distanceM(exact, point)).toBeLessThanOrEqual(1000);
    }
  });

  test('keeps the scale right at high latitude', async () => {
    const tromso = { lat: 69.6492, lng: 18.9553 };
    for (let i = 0; i < 50; i += 1) {
      expect(distanceM(tromso, await displacePoint(tromso, 200, SECRET, `n-${i}`))).toBeLessThanOrEqual(200);
    }
  });

  test.each([
    [{ lat: 91, lng: 0 }, 500],
    [{ lat: 0, lng: 181 }, 500],
    [{ lat: Number.NaN, lng: 0 }, 500],
    [BUCHAREST, 300],
  ])('refuses %o with radius %i', async (exact, radius) => {
    await expect(displacePoint(exact, radius as 500, SECRET, 'loc-1')).rejects.toThrow(RangeError);
  });
});

describe('radii and visibility', () => {
  test('500 m is the default radius and only 200, 500 and 1000 exist', () => {
    expect(DEFAULT_PRECISION_M).toBe(500);
    expect(PRECISION_RADII).toEqual([200, 500, 1000]);
    expect(isPrecisionRadius(500)).toBe(true);
    expect(isPrecisionRadius(250)).toBe(false);
    expect(isPrecisionRadius('500')).toBe(false);
  });

  test.each([
    ['individual', 'approximate'],
    ['company', 'exact'],
    ['something_new', 'approximate'],
  ])('an owner of type %s defaults to %s', (ownerType, expected) => {
    expect(defaultAddressVisibility(ownerType)).toBe(expected);
  });
});
