import { describe, expect, test } from 'vitest';
import { AvailabilityBatch, horizonEnd } from '../../domain/availability/nights.ts';
import { AMENITIES } from '../../domain/catalogue/amenities.ts';
import { legalProjection } from '../../domain/catalogue/legal.ts';
import { propertyTextErrors } from '../../domain/catalogue/source-rules.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
  Ref,
} from '../../domain/catalogue/source.ts';
import { generateSandboxCatalogue, type SandboxWrite } from '../../domain/sandbox/catalogue-generator.ts';
import { addDays, localDate } from '../../domain/time.ts';

const ANCHOR = new Date('2026-11-22T10:00:00Z');
const CHANNELS = ['sandbox-travel', 'sandbox-stays'];
const options = { seed: 7, properties: 1000, channels: CHANNELS, anchor: ANCHOR };
const catalogue = generateSandboxCatalogue(options);

const SCHEMAS = {
  putOrganization: OrganizationInput,
  putOwner: OwnerInput,
  putLocation: LocationInput,
  putProperty: PropertyInput,
  putDistribution: DistributionInput,
} as const;

function ofKind<T>(operationId: SandboxWrite['operationId']): { ref: string; body: T }[] {
  return catalogue.writes
    .filter((w) => w.operationId === operationId)
    .map((w) => ({ ref: w.ref, body: SCHEMAS[operationId].parse(w.body) as T }));
}
const owners = new Map(ofKind<OwnerInput>('putOwner').map((o) => [o.ref, o.body]));
const locations = new Map(ofKind<LocationInput>('putLocation').map((l) => [l.ref, l.body]));
const properties = ofKind<PropertyInput>('putProperty');
const locationOf = (property: PropertyInput) => locations.get(property.location)!;
const countryOf = (property: PropertyInput) => locationOf(property).address.country;
const fees = properties.flatMap((p) => p.body.fees);
const cityTaxes = fees.filter((f) => f.type === 'city_tax');
const plans = properties.flatMap((p) => p.body.rate_plans);
const updates = catalogue.availability;

describe('the sandbox catalogue generator', () => {
  test('the same options give byte-identical writes and nights; another seed other ones', () => {
    const again = generateSandboxCatalogue(options);
    expect(JSON.stringify(again)).toBe(JSON.stringify(catalogue));
    const other = generateSandboxCatalogue({ ...options, seed: 8 });
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(catalogue));
  });

  test('every write parses with the schema the platform interface validates it with, refs sbx-', () => {
    for (const write of catalogue.writes) {
      const parsed = SCHEMAS[write.operationId].safeParse(write.body);
      expect(parsed.error?.issues, `${write.operationId} ${write.ref}`).toBeUndefined();
      expect(Ref.safeParse(write.ref).success && write.ref.startsWith('sbx-'), write.ref).toBe(true);
    }
  });

  test("every property's texts pass the text rules with its country's source language", () => {
    for (const { ref, body } of properties) expect(propertyTextErrors(body, countryOf(body)), ref).toEqual([]);
  });

  test('every night update parses as the platform takes them, in batches of 1,000', () => {
    for (let i = 0; i < updates.length; i += 1000) {
      const parsed = AvailabilityBatch.safeParse({ updates: updates.slice(i, i + 1000) });
      expect(parsed.error?.issues).toBeUndefined();
    }
  });

  test('exactly the properties asked for: 1,000, and 30 for a small run', () => {
    expect(properties).toHaveLength(1000);
    expect(
      generateSandboxCatalogue({ ...options, properties: 30 }).writes.filter((w) => w.operationId === 'putProperty'),
    ).toHaveLength(30);
  });

  test('at least five countries, Romania and Italy among them', () => {
    const countries = new Set(properties.map((p) => countryOf(p.body)));
    expect(countries.size).toBeGreaterThanOrEqual(5);
    expect([...countries]).toEqual(expect.arrayContaining(['RO', 'IT']));
  });

  test('at least four time zones, one far from Europe', () => {
    const zones = new Set(properties.map((p) => locationOf(p.body).timezone));
    expect(zones.size).toBeGreaterThanOrEqual(4);
    expect([...zones].some((zone) => !zone.startsWith('Europe/'))).toBe(true);
  });

  test('approximate addresses at each radius, an owner-type default and exact ones', () => {
    const all = [...locations.values()];
    for (const radius of [200, 500, 1000])
      expect(
        all.some((l) => l.address_visibility === 'approximate' && l.precision_m === radius),
        `${radius}`,
      ).toBe(true);
    expect(all.some((l) => l.address_visibility === 'exact')).toBe(true);
    expect(all.some((l) => l.address_visibility === undefined)).toBe(true);
  });

  test('locations with several room types', () => {
    const perLocation = new Map<string, number>();
    for (const { body } of properties) perLocation.set(body.location, (perLocation.get(body.location) ?? 0) + 1);
    expect([...perLocation.values()].filter((n) => n >= 2).length).toBeGreaterThan(10);
  });

  test('company and individual owners', () => {
    const types = new Set([...owners.values()].map((o) => o.type));
    expect([...types].sort()).toEqual(['company', 'individual']);
  });

  test('every tourist-tax status', () => {
    expect(new Set(properties.map((p) => p.body.city_tax_status))).toEqual(new Set(['levied', 'none', 'undeclared']));
  });

  test('every tourist-tax basis, fixed, percent and unknown', () => {
    expect(new Set(cityTaxes.map((f) => f.basis))).toEqual(new Set(['fixed', 'percent', null]));
  });

  test('unknown tourist-tax amounts: a fixed tax without amount, a percentage without rate', () => {
    expect(cityTaxes.some((f) => f.basis === 'fixed' && f.amount === null)).toBe(true);
    expect(cityTaxes.some((f) => f.basis === 'percent' && f.percent_bp === null)).toBe(true);
  });

  test('fees per stay, per night and per guest-night', () => {
    expect(new Set(fees.map((f) => f.per))).toEqual(new Set(['stay', 'night', 'guest_night']));
  });

  test('Romanian certificates, one expiring within days and published until then', () => {
    const romanian = properties.filter((p) => countryOf(p.body) === 'RO');
    expect(romanian.every((p) => p.body.legal.classification?.country === 'RO')).toBe(true);
    const today = localDate(ANCHOR, 'Europe/Bucharest');
    const soon = romanian.filter((p) => p.body.legal.classification!.valid_until <= addDays(today, 7));
    expect(soon.length).toBeGreaterThanOrEqual(1);
    for (const { body } of soon)
      expect(legalProjection({ country: 'RO', ...body.legal }, today).publishable).toBe(true);
  });

  test('Italian properties carry a CIN that publishes them', () => {
    const italian = properties.filter((p) => countryOf(p.body) === 'IT');
    expect(italian.length).toBeGreaterThan(0);
    for (const { body } of italian) {
      expect(body.legal.identifiers.some((id) => id.scheme === 'it.cin')).toBe(true);
      expect(legalProjection({ country: 'IT', ...body.legal }, localDate(ANCHOR, 'Europe/Rome')).publishable).toBe(
        true,
      );
    }
  });

  test('plans with child age bands and plans without them', () => {
    expect(plans.some((plan) => plan.child_age_bands.length > 0)).toBe(true);
    expect(plans.some((plan) => plan.child_age_bands.length === 0)).toBe(true);
  });

  test('closed nights: no units, and a plan closed', () => {
    expect(updates.some((u) => u.units_available === 0)).toBe(true);
    expect(updates.some((u) => u.rates?.some((r) => r.closed === true))).toBe(true);
  });

  test("stay limits: a night's minimum and maximum, a plan's minimum", () => {
    expect(updates.some((u) => (u.min_stay ?? 1) > 1)).toBe(true);
    expect(updates.some((u) => typeof u.max_stay === 'number')).toBe(true);
    expect(updates.some((u) => u.rates?.some((r) => (r.min_stay ?? 1) > 1))).toBe(true);
  });

  test('closed to arrival and closed to departure', () => {
    expect(updates.some((u) => u.closed_to_arrival === true)).toBe(true);
    expect(updates.some((u) => u.closed_to_departure === true)).toBe(true);
  });

  test('photos on every property, with rooms and captions', () => {
    expect(properties.every((p) => p.body.photos.length >= 3)).toBe(true);
    expect(properties.some((p) => p.body.photos.some((photo) => photo.room !== null && photo.caption !== null))).toBe(
      true,
    );
  });

  test('every amenity: on one property, and across the catalogue', () => {
    const codes = AMENITIES.map((a) => a.code).sort();
    expect(properties.some((p) => [...p.body.amenities].sort().join() === codes.join())).toBe(true);
    expect([...new Set(properties.flatMap((p) => p.body.amenities))].sort()).toEqual(codes);
  });

  test("each channel's own extensions entry", () => {
    for (const { body } of properties) expect(Object.keys(body.extensions).sort()).toEqual([...CHANNELS].sort());
  });

  test('366 nights priced: every plan has default prices, and the updates stay in the horizon', () => {
    expect(plans.every((plan) => (plan.default_rates?.prices_by_occupancy.length ?? 0) > 0)).toBe(true);
    for (const update of updates) {
      const property = properties.find((p) => p.ref === update.property)!.body;
      const today = localDate(ANCHOR, locationOf(property).timezone);
      expect(update.from >= today && update.to <= horizonEnd(today), `${update.property} ${update.from}`).toBe(true);
    }
  });

  test('distribution: every channel sees most, each alone sees some', () => {
    const distributions = ofKind<DistributionInput>('putDistribution');
    expect(distributions).toHaveLength(1000);
    for (const channel of CHANNELS)
      expect(distributions.some((d) => d.body.channels.length === 1 && d.body.channels[0] === channel)).toBe(true);
  });
});
