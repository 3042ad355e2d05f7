import { expect } from 'vitest';
import type { z } from 'zod';
import type { AdminContext } from '../../admin/context.ts';
import type { LocationInput, OwnerInput, PropertyInput } from '../../domain/catalogue/source.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from './api.ts';
import { channelWithKey } from './fixtures.ts';
import { describedPlatformPath, expectMatchesPlatformDescription } from './platform-description.ts';

/**
 * The platform's side of a test: calls /internal/v1 with the platform token. Every answer on a
 * path the platform description has is checked against that description, so each test of the
 * platform interface also proves the description true.
 */
export function platform(api: TestApi) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api.call(method, `/internal/v1${path}`, {
      key: TEST_PLATFORM_TOKEN,
      ...(body === undefined ? {} : { body }),
    });
    if (describedPlatformPath(`/internal/v1${path}`))
      expectMatchesPlatformDescription(method, `/internal/v1${path}`, res);
    return res;
  };
  const write = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status >= 300) expect.fail(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res;
  };
  return {
    call,
    organization: (ref: string, country = 'RO') =>
      write('PUT', `/organizations/${ref}`, { name: `Org ${ref}`, country }),
    owner: (ref: string, body: Partial<z.input<typeof OwnerInput>> & { organization: string }) =>
      write('PUT', `/owners/${ref}`, { ...sampleOwner(body.organization), ...body }),
    location: (ref: string, body: Partial<z.input<typeof LocationInput>> & { organization: string; owner: string }) =>
      write('PUT', `/locations/${ref}`, { ...sampleLocation(body.organization, body.owner), ...body }),
    property: (ref: string, body: Partial<z.input<typeof PropertyInput>> & { location: string; owner: string }) =>
      write('PUT', `/properties/${ref}`, { ...sampleProperty(body.location, body.owner), ...body }),
    distribute: (ref: string, channels: string[]) => write('PUT', `/properties/${ref}/distribution`, { channels }),
    remove: (kind: 'properties' | 'locations' | 'owners' | 'organizations', ref: string) =>
      write('DELETE', `/${kind}/${ref}`),
  };
}

export type Platform = ReturnType<typeof platform>;

/**
 * A fresh channel shown one sample property per name, all under an organization, owner and
 * location named after the channel: the channel's key, and a property's ref by its name.
 */
export async function channelShown(
  ctx: AdminContext,
  host: Platform,
  names: string[],
  options: Parameters<typeof channelWithKey>[1] = {},
): Promise<{ key: string; ref: (name: string) => string }> {
  const { channel, key } = await channelWithKey(ctx, options);
  const prefix = channel.name;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  for (const name of names) {
    await host.property(`${prefix}-${name}`, { location: `${prefix}-loc`, owner: `${prefix}-own` });
    await host.distribute(`${prefix}-${name}`, [channel.name]);
  }
  return { key: key.key, ref: (name: string) => `${prefix}-${name}` };
}

/**
 * The UTC date `years` after `from` (before it for a negative number), as YYYY-MM-DD: validities
 * derived from the clock the test runs on stay in the future (or the past) whenever it runs.
 */
export function yearsAfter(from: Date, years: number): string {
  const date = new Date(from);
  date.setUTCFullYear(date.getUTCFullYear() + years);
  return date.toISOString().slice(0, 10);
}

export function sampleOwner(organization: string): Record<string, unknown> {
  return { organization, type: 'individual', display_name: 'Ana Popescu', languages: ['ro', 'en'] };
}

export function sampleLocation(organization: string, owner: string): Record<string, unknown> {
  return {
    organization,
    owner,
    name: 'Casa din Deal',
    category: 'house',
    address: {
      country: 'RO',
      region: 'Brașov',
      city: 'Bran',
      street: 'Strada Principală',
      number: '12',
      postal_code: '507025',
    },
    geo: { lat: 45.5152, lng: 25.3673 },
    timezone: 'Europe/Bucharest',
  };
}

/** A sample property's capacity cut to two adults, a child and an infant (`flex` then prices two adults). */
export const TWO_ADULTS: z.input<typeof PropertyInput>['capacity'] = {
  max_guests: 3,
  max_adults: 2,
  max_children: 1,
  max_infants: 1,
  bedrooms: 1,
  bathrooms: 1,
  beds: [{ type: 'double', count: 1 }],
};

/** A `prices_by_occupancy` list: the amounts for 1, 2, … adults. */
export const adults = (...amounts: number[]) => amounts.map((amount, i) => ({ adults: i + 1, amount }));

/** A second rate plan for a sample property, beside its `flex`: non-refundable, with two child age bands. */
export const NONREF_PLAN: z.input<typeof PropertyInput>['rate_plans'][number] = {
  key: 'nonref',
  name: { ro: 'Nerambursabil' },
  currency: 'RON',
  child_age_bands: [
    { age_from: 0, age_to: 5 },
    { age_from: 6, age_to: 12 },
  ],
  cancellation: { refundable: false, free_until_days_before: null, penalty: 'full_stay', penalty_percent: null },
};

export function sampleProperty(location: string, owner: string): Record<string, unknown> {
  return {
    location,
    owner,
    type: 'apartment',
    units: 1,
    name: { ro: 'Apartament cu vedere', en: 'Apartment with a view' },
    description: { ro: 'Apartament luminos lângă castel.', en: 'Bright apartment near the castle.' },
    capacity: {
      max_guests: 4,
      max_adults: 4,
      max_children: 2,
      max_infants: 1,
      bedrooms: 2,
      bathrooms: 1,
      beds: [
        { type: 'double', count: 1 },
        { type: 'single', count: 2 },
      ],
    },
    photos: [
      {
        key: 'front',
        url: 'https://cdn.example.com/p/front.jpg',
        content_type: 'image/jpeg',
        width: 1600,
        height: 1067,
        checksum: `sha256:${'a'.repeat(64)}`,
        room: 'living',
        caption: { ro: 'Sufrageria', en: 'Living room' },
      },
    ],
    check_in: { from: '15:00', until: '22:00' },
    check_out: { until: '11:00' },
    rate_plans: [
      {
        key: 'flex',
        name: { ro: 'Flexibil', en: 'Flexible' },
        currency: 'RON',
        cancellation: { refundable: true, free_until_days_before: 7, penalty: 'first_night', penalty_percent: null },
      },
    ],
    fees: [
      {
        type: 'cleaning',
        basis: 'fixed',
        amount: { amount: 10000, currency: 'RON' },
        per: 'stay',
        payable_at: 'booking',
      },
    ],
    city_tax_status: 'none',
    legal: {
      classification: {
        certificate_number: 'RO-123/2025',
        category: 'apartament',
        rating_kind: 'stars',
        rating: 3,
        valid_until: yearsAfter(new Date(), 5),
        country: 'RO',
      },
    },
    booking: {
      method: 'redirect',
      url: 'https://casa-din-deal.example/book',
      url_template: 'https://casa-din-deal.example/book?adults={adults}&children={children}',
    },
    amenities: ['wifi', 'kitchen'],
    house_rules: {
      smoking: false,
      pets: true,
      parties: false,
      quiet_hours: { from: '22:00', until: '08:00' },
      min_age: 18,
    },
  };
}
