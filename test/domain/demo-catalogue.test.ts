import { describe, expect, test } from 'vitest';
import { demoAvailability } from '../../admin/demo-availability.ts';
import { addDays, DEMO_CHANNELS, demoCatalogue, type DemoWrite } from '../../admin/demo-catalogue.ts';
import { AMENITIES } from '../../domain/catalogue/amenities.ts';
import { defaultAddressVisibility, DEFAULT_PRECISION_M } from '../../domain/catalogue/geo.ts';
import { legalProjection } from '../../domain/catalogue/legal.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
  Ref,
} from '../../domain/catalogue/source.ts';
import { sourceLanguage, textMapViolations } from '../../domain/catalogue/text.ts';

const TODAY = '2026-11-22';
const writes = demoCatalogue(DEMO_CHANNELS, TODAY);

const SCHEMAS = {
  putOrganization: OrganizationInput,
  putOwner: OwnerInput,
  putLocation: LocationInput,
  putProperty: PropertyInput,
  putDistribution: DistributionInput,
} as const;

const parsed = (write: DemoWrite) => SCHEMAS[write.operationId].parse(write.body);

function ofKind(operationId: 'putOwner'): { ref: string; body: OwnerInput }[];
function ofKind(operationId: 'putLocation'): { ref: string; body: LocationInput }[];
function ofKind(operationId: 'putProperty'): { ref: string; body: PropertyInput }[];
function ofKind(operationId: 'putDistribution'): { ref: string; body: DistributionInput }[];
function ofKind(operationId: DemoWrite['operationId']) {
  return writes.filter((w) => w.operationId === operationId).map((w) => ({ ref: w.ref, body: parsed(w) }));
}

const owners = new Map(ofKind('putOwner').map((o) => [o.ref, o.body]));
const locations = new Map(ofKind('putLocation').map((l) => [l.ref, l.body]));
const properties = ofKind('putProperty');
const countryOf = (property: PropertyInput) => locations.get(property.location)!.address.country;

describe('demo catalogue', () => {
  test('every body parses with the schema of its write; refs are demo- references', () => {
    for (const write of writes) {
      const result = SCHEMAS[write.operationId].safeParse(write.body);
      expect(result.error?.issues, `${write.operationId} ${write.ref}`).toBeUndefined();
      expect(Ref.safeParse(write.ref).success).toBe(true);
      expect(write.ref.startsWith('demo-')).toBe(true);
    }
  });

  test('writes come in dependency order, each reference written before it is named', () => {
    const order = ['putOrganization', 'putOwner', 'putLocation', 'putProperty', 'putDistribution'];
    const ranks = writes.map((w) => order.indexOf(w.operationId));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));

    const seen = new Set<string>();
    const mustExist = (kind: string, ref: string) => expect(seen.has(`${kind}:${ref}`), `${kind} ${ref}`).toBe(true);
    for (const write of writes) {
      const body = parsed(write) as Record<string, any>;
      switch (write.operationId) {
        case 'putOwner':
          mustExist('putOrganization', body.organization);
          break;
        case 'putLocation':
          mustExist('putOrganization', body.organization);
          mustExist('putOwner', body.owner);
          break;
        case 'putProperty': {
          mustExist('putLocation', body.location);
          mustExist('putOwner', body.owner);
          const location = locations.get(body.location)!;
          mustExist('putOrganization', location.organization);
          // A property's owner belongs to the organization of its location.
          expect(owners.get(body.owner)!.organization).toBe(location.organization);
          break;
        }
        case 'putDistribution':
          mustExist('putProperty', write.ref);
          break;
        case 'putOrganization':
          break;
      }
      const key = `${write.operationId}:${write.ref}`;
      expect(seen.has(key), `written twice: ${key}`).toBe(false);
      seen.add(key);
    }
  });

  test("every property's text maps pass the text rules in the source language of its country", () => {
    for (const { ref, body } of properties) {
      const language = sourceLanguage(countryOf(body));
      const maps = [
        body.name,
        body.description,
        ...body.photos.flatMap((p) => (p.caption ? [p.caption] : [])),
        ...body.rate_plans.map((p) => p.name),
      ];
      for (const map of maps) expect(textMapViolations(map, language), `${ref} ${JSON.stringify(map)}`).toEqual([]);
      expect(Object.keys(body.description).length, ref).toBeGreaterThanOrEqual(2);
    }
  });

  test('amenity codes come from the catalogue; money is in the currency of the country', () => {
    const codes = new Set(AMENITIES.map((a) => a.code));
    for (const { ref, body } of properties) {
      for (const code of body.amenities) expect(codes.has(code), `${ref} ${code}`).toBe(true);
      const currency = countryOf(body) === 'RO' ? 'RON' : 'EUR';
      for (const plan of body.rate_plans) expect(plan.currency).toBe(currency);
      for (const fee of body.fees) if (fee.amount) expect(fee.amount.currency).toBe(currency);
      expect(body.photos.length).toBeGreaterThanOrEqual(2);
      expect(body.photos.length).toBeLessThanOrEqual(4);
      for (const photo of body.photos) expect(photo.url.startsWith('https://cdn.example.com/')).toBe(true);
    }
  });

  test('every property is publishable today; the soon-expiring Romanian certificate is not in 30 days', () => {
    const legalSource = (body: PropertyInput) => ({ country: countryOf(body), ...body.legal });
    for (const { ref, body } of properties) {
      expect(legalProjection(legalSource(body), TODAY).publishable, ref).toBe(true);
    }
    const romanian = properties.filter((p) => countryOf(p.body) === 'RO');
    expect(romanian.length).toBeGreaterThanOrEqual(4);
    const in30 = addDays(TODAY, 30);
    const expiring = romanian.filter((p) => !legalProjection(legalSource(p.body), in30).publishable);
    expect(expiring.map((p) => p.body.type)).toEqual(['apartment']);
    expect(legalProjection(legalSource(expiring[0]!.body), in30)).toEqual({
      publishable: false,
      reason: 'ro_classification_expired',
    });
    expect(expiring[0]!.body.legal.classification!.valid_until).toBe('2026-12-12');
    // The others stay valid for years.
    for (const p of romanian.filter((r) => r !== expiring[0])) {
      expect(legalProjection(legalSource(p.body), addDays(TODAY, 2 * 365)).publishable).toBe(true);
    }
  });

  test('legal data per country: RO classification, IT CIN without classification, ES es.ri', () => {
    for (const { body } of properties) {
      const country = countryOf(body);
      if (country === 'RO') expect(body.legal.classification?.country).toBe('RO');
      if (country === 'IT') {
        expect(body.legal.classification).toBeNull();
        expect(body.legal.identifiers.find((id) => id.scheme === 'it.cin')?.value).toMatch(/^IT\d{6}C\d[A-Z0-9]{8}$/);
      }
      if (country === 'ES') expect(body.legal.identifiers.map((id) => id.scheme)).toContain('es.ri');
    }
  });

  test('covers the countries, the guesthouse, the tourist-tax variants, the radii and the visibilities', () => {
    expect(new Set(properties.map((p) => countryOf(p.body)))).toEqual(new Set(['RO', 'IT', 'ES']));

    const guesthouse = [...locations].find(([, l]) => l.category === 'guesthouse')![0];
    const rooms = properties.filter((p) => p.body.location === guesthouse);
    expect(rooms.map((r) => r.body.type)).toEqual(['guesthouse_room', 'guesthouse_room', 'guesthouse_room']);
    expect(new Set(rooms.map((r) => r.body.units)).size).toBe(3);

    const taxVariants = new Set(
      properties.map(({ body }) => {
        if (body.city_tax_status !== 'levied') return body.city_tax_status;
        const fee = body.fees.find((f) => f.type === 'city_tax')!;
        return `levied:${fee.basis}`;
      }),
    );
    expect(taxVariants).toEqual(new Set(['levied:fixed', 'levied:percent', 'none', 'undeclared']));
    const fixed = properties.flatMap((p) => p.body.fees).find((f) => f.type === 'city_tax' && f.basis === 'fixed')!;
    expect(fixed).toMatchObject({ per: 'guest_night', payable_at: 'property', exempts_children: true });
    expect(fixed.max_nights).not.toBeNull();
    const percent = properties.flatMap((p) => p.body.fees).find((f) => f.type === 'city_tax' && f.basis === 'percent')!;
    expect(percent).toMatchObject({
      percent_bp: 100,
      percent_of: 'accommodation_excluding_vat',
      per: 'stay',
      payable_at: 'property',
      exempts_children: null,
    });
    expect(
      properties.some((p) =>
        p.body.fees.some((f) => f.type === 'cleaning' && f.per === 'stay' && f.payable_at === 'booking'),
      ),
    ).toBe(true);

    const placement = [...locations.values()].map((l) => {
      const visibility = l.address_visibility ?? defaultAddressVisibility(owners.get(l.owner)!.type);
      return {
        visibility,
        radius: visibility === 'approximate' ? (l.precision_m ?? DEFAULT_PRECISION_M) : null,
        explicit: l.address_visibility !== undefined,
        ownerType: owners.get(l.owner)!.type,
      };
    });
    expect(new Set(placement.map((p) => p.visibility))).toEqual(new Set(['exact', 'approximate']));
    expect(new Set(placement.flatMap((p) => (p.radius === null ? [] : [p.radius])))).toEqual(new Set([200, 500, 1000]));
    expect(placement.some((p) => !p.explicit && p.ownerType === 'individual')).toBe(true);
    expect(placement.some((p) => p.visibility === 'exact' && p.ownerType === 'company')).toBe(true);
  });

  test('owners: a company with full company data and individuals', () => {
    const all = [...owners.values()];
    const company = all.find((o) => o.type === 'company')!;
    expect(company.company).toMatchObject({
      tax_id: expect.stringMatching(/^RO\d{2,10}$/),
      trade_register_no: expect.stringMatching(/^J\d{2}\/\d+\/\d{4}$/),
    });
    expect(company.logo?.url.startsWith('https://cdn.example.com/')).toBe(true);
    expect(all.filter((o) => o.type === 'individual').length).toBeGreaterThanOrEqual(2);
  });

  test('extensions per channel, and distribution to some channels only', () => {
    const extended = properties.filter((p) => Object.keys(p.body.extensions).length > 0);
    expect(extended).toHaveLength(1);
    expect(extended[0]!.body.extensions).toEqual({
      'demo-travel': { promo_tier: 'gold' },
      'demo-stays': { listing_group: 'b' },
    });

    const distributions = ofKind('putDistribution');
    expect(distributions.map((d) => d.ref).sort()).toEqual(properties.map((p) => p.ref).sort());
    const shapes = new Set(distributions.map((d) => [...d.body.channels].sort().join(',')));
    expect(shapes).toEqual(new Set(['demo-stays,demo-travel', 'demo-travel', 'demo-stays']));
  });

  test('channel names are taken from the argument', () => {
    const other = demoCatalogue({ first: 'alpha-channel', second: 'beta-channel' }, TODAY);
    const names = new Set(
      other.filter((w) => w.operationId === 'putDistribution').flatMap((w) => (w.body as DistributionInput).channels),
    );
    expect(names).toEqual(new Set(['alpha-channel', 'beta-channel']));
    expect(JSON.stringify(other)).not.toContain('demo-travel');
  });

  test('deterministic: the same input gives the same writes, and bodies are not shared', () => {
    const again = demoCatalogue(DEMO_CHANNELS, TODAY);
    expect(again).toEqual(writes);
    expect(JSON.stringify(again)).toBe(JSON.stringify(demoCatalogue(DEMO_CHANNELS, TODAY)));
    (again[0]!.body as { name: string }).name = 'changed';
    expect(demoCatalogue(DEMO_CHANNELS, TODAY)).toEqual(writes);
  });

  test('dates follow today with UTC arithmetic, across month and year ends; bad dates are refused', () => {
    expect(addDays('2026-12-20', 20)).toBe('2027-01-09');
    expect(addDays('2028-02-20', 20)).toBe('2028-03-11');
    const late = demoCatalogue(DEMO_CHANNELS, '2026-12-20');
    const apartment = late.find(
      (w) =>
        w.operationId === 'putProperty' && (w.body as PropertyInput).type === 'apartment' && w.ref.includes('brasov'),
    )!;
    expect((apartment.body as PropertyInput).legal.classification!.valid_until).toBe('2027-01-09');
    expect(() => demoCatalogue(DEMO_CHANNELS, '2026-02-30')).toThrow(RangeError);
    expect(() => demoCatalogue(DEMO_CHANNELS, 'today')).toThrow(RangeError);
  });
});

describe('demo availability', () => {
  test("each property's year starts on its own local today, also when Bucharest is a day ahead of Rome and Madrid", () => {
    // 22:30 UTC: already 23 November in Bucharest, still 22 November in Rome and Madrid.
    const updates = demoAvailability(writes, new Date('2026-11-22T22:30:00Z'));
    const zoneOf = new Map(
      writes
        .filter((w) => w.operationId === 'putLocation')
        .map((w) => [w.ref, (w.body as { timezone: string }).timezone]),
    );
    const properties = writes.filter((w) => w.operationId === 'putProperty');
    expect(new Set(properties.map((p) => zoneOf.get((p.body as { location: string }).location)))).toEqual(
      new Set(['Europe/Bucharest', 'Europe/Rome', 'Europe/Madrid']),
    );
    for (const property of properties) {
      const zone = zoneOf.get((property.body as { location: string }).location);
      const first = updates
        .filter((u) => u.property === property.ref)
        .map((u) => u.from)
        .sort()[0];
      expect(first, property.ref).toBe(zone === 'Europe/Bucharest' ? '2026-11-23' : '2026-11-22');
    }
  });
});
