import { describe, expect, test } from 'vitest';
import {
  AMENITIES,
  AMENITY_CATEGORIES,
  AMENITY_CODE_PATTERN,
  AMENITY_LANGUAGES,
  amenityByCode,
  isAmenityCode,
} from '../../domain/catalogue/amenities.ts';
import { textViolations } from '../../domain/catalogue/text.ts';

describe('amenity catalogue', () => {
  test('has a realistic size and unique codes', () => {
    expect(AMENITIES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(AMENITIES.map((a) => a.code)).size).toBe(AMENITIES.length);
  });

  test.each(AMENITIES.map((a) => [a.code, a] as const))('%s is well formed', (code, amenity) => {
    expect(code).toMatch(AMENITY_CODE_PATTERN);
    expect(AMENITY_CATEGORIES).toContain(amenity.category);
    expect(Object.keys(amenity.name).sort()).toEqual([...AMENITY_LANGUAGES].sort());
    for (const language of AMENITY_LANGUAGES) {
      expect(amenity.name[language].trim()).not.toBe('');
      expect(textViolations(amenity.name[language])).toEqual([]);
    }
    for (const ota of amenity.ota_codes) {
      expect(['HAC', 'RMA']).toContain(ota.list);
      expect(Number.isInteger(ota.code) && ota.code > 0).toBe(true);
    }
    expect(amenity.ota_code).toEqual(amenity.ota_codes[0] ?? null);
    if (amenity.ota_codes.some((ota) => ota.list === 'HAC')) expect(amenity.ota_code?.list).toBe('HAC');
    expect(new Set(amenity.ota_codes.map((ota) => `${ota.list}${ota.code}`)).size).toBe(amenity.ota_codes.length);
  });

  test('every category is used', () => {
    const used = new Set(AMENITIES.map((a) => a.category));
    expect([...AMENITY_CATEGORIES].filter((c) => !used.has(c))).toEqual([]);
  });

  // Spot checks against the OpenTravel code lists.
  test.each([
    ['air_conditioning', 'HAC', 5],
    ['free_parking', 'HAC', 42],
    ['parking', 'HAC', 68],
    ['pool', 'HAC', 71],
    ['sauna', 'HAC', 79],
    ['wifi', 'HAC', 344],
    ['ev_charger', 'HAC', 316],
    ['kitchen', 'RMA', 59],
    ['hair_dryer', 'HAC', 240],
  ])('%s maps to %s %i', (code, list, value) => {
    expect(amenityByCode(code)?.ota_code).toEqual({ list, code: value });
  });
});

describe('lookup', () => {
  test('finds by code', () => {
    expect(amenityByCode('wifi')?.name.de).toBe('WLAN');
    expect(isAmenityCode('sauna')).toBe(true);
  });

  test.each(['WIFI', 'wi-fi', '', 'unknown'])('%s is not an amenity', (code) => {
    expect(amenityByCode(code)).toBeUndefined();
    expect(isAmenityCode(code)).toBe(false);
  });
});
