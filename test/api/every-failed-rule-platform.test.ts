import { beforeAll, describe, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import { sampleLocation, sampleOwner, sampleProperty, type Platform } from '../support/catalogue.ts';
import type { HttpResponse } from '../support/https-client.ts';
import { expectProblem } from '../support/problems.ts';

/**
 * The platform's writes: a write that breaks rules of several layers (the path, each field's
 * shape, the rules against the records stored) is refused once, naming every rule it breaks, and
 * writes nothing; each rule broken alone is still answered with its one entry.
 */

let host: Platform;

beforeAll(async () => {
  ({ host } = await apiTestBed());
});

/** Each entry as `pointer code` (or `parameter code`), sorted. */
const entries = (res: HttpResponse): string[] => {
  expectProblem(res, 400, 'invalid_parameters', ['errors']);
  return (res.json.errors as { pointer?: string; parameter?: string; code: string }[])
    .map((error) => `${error.pointer ?? error.parameter} ${error.code}`)
    .sort();
};

let counter = 0;
/** An organization, its owner, a location with one property: their refs. */
async function place() {
  counter += 1;
  const p = `efp${counter}`;
  await host.organization(`${p}-org`);
  await host.owner(`${p}-own`, { organization: `${p}-org` });
  await host.location(`${p}-loc`, { organization: `${p}-org`, owner: `${p}-own` });
  await host.property(`${p}-p`, { location: `${p}-loc`, owner: `${p}-own` });
  return { p, org: `${p}-org`, owner: `${p}-own`, location: `${p}-loc`, property: `${p}-p` };
}

describe('one refusal names every rule a platform write breaks', () => {
  test('the path is checked with the body or the query; a malformed date is named once', async () => {
    const res = await host.call('PUT', '/organizations/bad%20ref', { name: 'X', country: 'Romania' });
    expect(entries(res)).toEqual(['/country regex', 'ref regex'].sort());
    expect(entries(await host.call('GET', '/organizations/bad%20ref'))).toEqual(['ref regex']);
    const query = await host.call('GET', '/properties/bad%20ref/stats?from=2026-11-01&to=yesterday');
    expect(entries(query)).toEqual(['ref regex', 'to date_format'].sort());
    // A malformed date is named once: the range between the two is not judged on it.
    const { property } = await place();
    expect(entries(await host.call('GET', `/properties/${property}/stats?from=2026-13-01&to=2026-12-01`))).toEqual([
      'from date_format',
    ]);
  });

  test('PUT /owners/{ref}: an unknown organization beside a broken field; the owner is not written', async () => {
    const { p } = await place();
    const res = await host.call('PUT', `/owners/${p}-new`, {
      ...sampleOwner('no-such-org'),
      display_name: '',
    });
    expect(entries(res)).toEqual(['/display_name min', '/organization unknown_reference'].sort());
    expectProblem(await host.call('GET', `/owners/${p}-new`), 404, 'not_found');
    expect(entries(await host.call('PUT', `/owners/${p}-new`, sampleOwner('no-such-org')))).toEqual([
      '/organization unknown_reference',
    ]);
  });

  test('PUT /locations/{ref}: an unknown owner and a changed country beside a broken field; the location keeps what it was', async () => {
    const { org, location } = await place();
    const before = (await host.call('GET', `/locations/${location}`)).json;
    const body = sampleLocation(org, 'no-such-owner');
    const res = await host.call('PUT', `/locations/${location}`, {
      ...body,
      address: { ...(body.address as object), country: 'IT' },
      geo: { lat: 100, lng: 25 },
    });
    expect(entries(res)).toEqual(['/geo/lat max', '/owner unknown_reference', '/address/country immutable'].sort());
    expect((await host.call('GET', `/locations/${location}`)).json).toEqual(before);
  });

  test('PUT /properties/{ref}: the texts, an unknown owner and the source language beside broken fields; nothing written', async () => {
    const { p, location } = await place();
    const res = await host.call('PUT', `/properties/${p}-new`, {
      ...sampleProperty(location, 'no-such-owner'),
      units: 0,
      name: { en: 'Only English <b>bold</b>' },
    });
    expect(entries(res)).toEqual(
      ['/units min', '/name/en text_html', '/name source_language_missing', '/owner unknown_reference'].sort(),
    );
    expectProblem(await host.call('GET', `/properties/${p}-new`), 404, 'not_found');
  });

  test('PUT /properties/{ref}/distribution: unknown channels beside malformed and repeated names; the distribution is kept', async () => {
    const { property } = await place();
    const res = await host.call('PUT', `/properties/${property}/distribution`, {
      channels: ['Bad Name', 'no-such-channel', 'no-such-channel'],
    });
    expect(entries(res)).toEqual(
      [
        '/channels/0 regex',
        '/channels/1 unknown_reference',
        '/channels/2 unknown_reference',
        '/channels/2 duplicate',
      ].sort(),
    );
    expect((await host.call('GET', `/properties/${property}/distribution`)).json.channels).toEqual([]);
    expect(
      entries(await host.call('PUT', `/properties/${property}/distribution`, { channels: ['no-such-channel'] })),
    ).toEqual(['/channels/0 unknown_reference']);
  });

  test('POST /availability: unknown properties and rate plans and a short price list beside a malformed date', async () => {
    const { property } = await place();
    const res = await host.call('POST', '/availability', {
      updates: [
        {
          property,
          from: '2026-12-20',
          to: 'soon',
          rates: [
            { rate_plan: 'flex', prices_by_occupancy: [{ adults: 1, amount: 10000 }] },
            { rate_plan: 'no-such-plan', closed: true },
            { rate_plan: 'flex', closed: 'yes' },
          ],
        },
        { property: 'no-such-property', from: '2026-12-20', to: '2026-12-21' },
      ],
    });
    expect(entries(res)).toEqual(
      [
        '/updates/0/to date_format',
        '/updates/0/rates/2/closed type',
        // The sample property takes up to 4 adults: one entry for each count without a price.
        ...['2', '3', '4'].map(() => '/updates/0/rates/0/prices_by_occupancy adults_missing'),
        '/updates/0/rates/1/rate_plan unknown_reference',
        '/updates/1/property unknown_reference',
      ].sort(),
    );
  });

  test('POST /host-sessions and PUT /guests/{ref}: an unknown organization beside a broken field', async () => {
    const session = await host.call('POST', '/host-sessions', { organization: 'no-such-org', locale: 'not a tag' });
    expect(entries(session)).toEqual(['/locale regex', '/organization unknown_reference'].sort());
    const guest = await host.call('PUT', `/guests/efp-guest-${counter}`, {
      organization: 'no-such-org',
      first_name: 'Ana',
      last_name: 'Popescu',
      email: 'not an address',
      phone: '+40712345678',
    });
    expect(entries(guest)).toEqual(['/email email', '/organization unknown_reference'].sort());
  });
});
