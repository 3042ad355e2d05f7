import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import type { Scope } from '../../domain/scopes.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import type { HttpResponse } from '../support/https-client.ts';
import { listingTables, pointers } from '../support/listings.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

/**
 * A request that breaks rules of several layers (each field's shape, the rules between fields,
 * the rules against the channel's data) is refused once, naming every rule it breaks; each rule
 * broken alone is still answered with its one entry.
 */

const BASE = '/api/v1/distribution';
// The bed's clock: 2026-11-22T10:00:00Z, the 22nd in Bucharest, the sample properties' zone.
let api: TestApi;
let ctx: AdminContext;
let host: Platform;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, ctx, host, orm } = await apiTestBed());
});

let counter = 0;
/** A channel shown one fresh property, with the key's scopes, and the channel's id for the property. */
async function setup(scopes: Scope[]) {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', ...scopes] });
  const p = `efr${counter}`;
  await host.organization(`${p}-org`);
  await host.owner(`${p}-own`, { organization: `${p}-org` });
  await host.location(`${p}-loc`, { organization: `${p}-org`, owner: `${p}-own` });
  await host.property(`${p}-p`, { location: `${p}-loc`, owner: `${p}-own` });
  await host.distribute(`${p}-p`, [channel.name]);
  const list = await api.call('GET', `${BASE}/properties`, { key: key.key });
  return { key: key.key, id: (list.json.data as { id: string }[])[0]!.id };
}

const call = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await api.call(method, `${BASE}${path}`, { key, ...(body === undefined ? {} : { body }) });
  expectMatchesDescription(method, `${BASE}${path}`, res);
  return res;
};

/** Each entry as `pointer code` (or `parameter code`), in order. */
const entries = (res: HttpResponse): string[] => {
  expectProblem(res, 400, 'invalid_parameters', ['errors']);
  return (res.json.errors as { pointer?: string; parameter?: string; code: string }[]).map(
    (error) => `${error.pointer ?? error.parameter} ${error.code}`,
  );
};
const sorted = (list: string[]) => [...list].sort();

const day = (property_id: string, date: string, views: unknown = 10, clicks_to_booking: unknown = 1) => ({
  property_id,
  date,
  views,
  clicks_to_booking,
});

describe('one refusal names every rule a request breaks', () => {
  test("POST /listing-stats: the entries' shapes, exceeds_views, the dates, an unseen property and a repeated day together; nothing written", async () => {
    const { key, id } = await setup(['write:listings']);
    const before = await listingTables(orm);
    const res = await call(key, 'POST', '/listing-stats', {
      data: [
        day(id, '2026-11-30', 3, 5),
        { ...day(id, '2026-09-01'), extra: true },
        day('prp_0aaaaaaaaaaaaaaaaaaaaaaaaa', '2026-11-20', -1, 0),
        day(id, '2026-11-20'),
        day(id, '2026-11-20', 1.5),
        day(id, '2026-11-31'),
      ],
    });
    expect(sorted(entries(res))).toEqual(
      sorted([
        '/data/0/clicks_to_booking exceeds_views',
        '/data/0/date in_the_future',
        '/data/1/extra unknown_field',
        '/data/1/date too_old',
        '/data/2/views min',
        '/data/2/property_id not_found',
        '/data/4/views type',
        '/data/4/date duplicate',
        '/data/5/date date_format',
      ]),
    );
    expect(await listingTables(orm)).toEqual(before);
    // Each broken alone: its one entry, as before.
    expect(pointers(await call(key, 'POST', '/listing-stats', { data: [day(id, '2026-11-30')] }))).toEqual([
      ['/data/0/date', 'in_the_future'],
    ]);
    expect(pointers(await call(key, 'POST', '/listing-stats', { data: [day(id, '2026-11-20', 3, 5)] }))).toEqual([
      ['/data/0/clicks_to_booking', 'exceeds_views'],
    ]);
    // A list longer than a request takes is refused for its length; its entries are not looked up.
    const long = Array.from({ length: 1001 }, () => day('prp_0aaaaaaaaaaaaaaaaaaaaaaaaa', '2026-11-20'));
    expect(entries(await call(key, 'POST', '/listing-stats', { data: long }))).toEqual(['/data max']);
  });

  test('PUT /properties/{property_id}/listing: an unknown field, another property_id and the rules between fields together; a broken field is named once', async () => {
    const { key, id } = await setup(['write:listings']);
    const before = await listingTables(orm);
    const res = await call(key, 'PUT', `/properties/${id}/listing`, {
      status: 'published',
      public_url: null,
      promoted: false,
      promoted_until: '2026-12-01T00:00:00Z',
      rejection: { reason: 'photos', text: null },
      colour: 'red',
      property_id: 'prp_0aaaaaaaaaaaaaaaaaaaaaaaaa',
    });
    expect(sorted(entries(res))).toEqual(
      sorted([
        '/colour unknown_field',
        '/property_id path_mismatch',
        '/public_url required',
        '/rejection not_allowed',
        '/promoted_until not_allowed',
      ]),
    );
    expect(await listingTables(orm)).toEqual(before);
    // A status or an end that is not one: the rules reading it are not checked, the field is named once.
    const broken = await call(key, 'PUT', `/properties/${id}/listing`, {
      status: 'Published',
      public_url: 'https://travel.example/stay/1',
      promoted: false,
      promoted_until: 'tomorrow',
    });
    expect(sorted(entries(broken))).toEqual(sorted(['/status regex', '/promoted_until date_format']));
    expect(await listingTables(orm)).toEqual(before);
  });

  test("POST /webhooks: a private address beside the body's other broken rules", async () => {
    const { key } = await setup(['manage:webhooks']);
    const res = await call(key, 'POST', '/webhooks', {
      url: 'https://10.0.0.7/hook',
      events: ['Property.Exploded'],
      colour: 'red',
    });
    expect(sorted(entries(res))).toEqual(
      sorted(['/url url_not_allowed', '/events/0 event_pattern', '/colour unknown_field']),
    );
    expect((await call(key, 'GET', '/webhooks')).json.data).toEqual([]);
    // Alone: its one entry.
    expect(entries(await call(key, 'POST', '/webhooks', { url: 'https://10.0.0.7/hook', events: ['*'] }))).toEqual([
      '/url url_not_allowed',
    ]);
  });

  test("GET /quotes: an arrival before the property's today beside the query's other broken rules; a malformed arrival is named once", async () => {
    const { key, id } = await setup(['read:ari']);
    const stay = `property_id=${id}&arrival=2026-11-20&departure=2026-11-23`;
    const res = await call(key, 'GET', `/quotes?${stay}&adults=0&children=x`);
    expect(sorted(entries(res))).toEqual(sorted(['arrival in_the_past', 'adults min', 'children child_ages']));
    expect(entries(await call(key, 'GET', `/quotes?${stay}&adults=2`))).toEqual(['arrival in_the_past']);
    // A property the channel does not see is 404 when nothing else is wrong, and no failed rule beside others.
    const unseen = `property_id=prp_0aaaaaaaaaaaaaaaaaaaaaaaaa&arrival=2026-11-20&departure=2026-11-23`;
    expect(entries(await call(key, 'GET', `/quotes?${unseen}&adults=0`))).toEqual(['adults min']);
    expectProblem(await call(key, 'GET', `/quotes?${unseen}&adults=2`), 404, 'not_found');
    // A malformed arrival is named once: the range between the two dates is not judged on it.
    expect(
      entries(await call(key, 'GET', `/quotes?property_id=${id}&arrival=2026-13-01&departure=2026-12-01&adults=2`)),
    ).toEqual(['arrival date_format']);
  });

  test('GET /availability: a malformed from is named once, the range between the dates not judged on it', async () => {
    const { key } = await setup(['read:ari']);
    expect(entries(await call(key, 'GET', '/availability?from=2026-13-01&to=2026-12-01'))).toEqual([
      'from date_format',
    ]);
    expect(entries(await call(key, 'GET', '/availability?from=2026-12-05&to=2026-12-01'))).toEqual(['to range']);
  });
});
