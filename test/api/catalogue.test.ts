import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { keepAllPartitions } from '../support/partitions.ts';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { AMENITIES } from '../../domain/catalogue/amenities.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { sampleProperty, type Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let host: Platform;
let orm: MikroORM;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm } = await apiTestBed());
});

let refCounter = 0;
/** A fresh organization, owner and location; the property refs are the caller's. */
async function place(options: { ownerType?: 'individual' | 'company'; location?: Record<string, unknown> } = {}) {
  refCounter += 1;
  const org = `org-${refCounter}`;
  const owner = `own-${refCounter}`;
  const location = `loc-${refCounter}`;
  await host.organization(org);
  await host.owner(owner, {
    organization: org,
    type: options.ownerType ?? 'individual',
    ...(options.ownerType === 'company'
      ? {
          display_name: 'Carpați Stays',
          company: {
            legal_name: 'Carpați Stays SRL',
            tax_id: 'RO123456',
            trade_register_no: 'J08/1/2020',
            registered_office: { street: 'Str. Lungă', city: 'Brașov', country: 'RO' },
          },
        }
      : {}),
  });
  await host.location(location, { organization: org, owner, ...options.location });
  return { org, owner, location };
}

async function twoChannels(scopes: ('read:catalog' | 'read:ari' | 'manage:webhooks')[] = ['read:catalog']) {
  const a = await channelWithKey(ctx, { scopes });
  const b = await channelWithKey(ctx, { scopes });
  return { a: { name: a.channel.name, key: a.key.key }, b: { name: b.channel.name, key: b.key.key } };
}

/** Every successful read is also checked against the published description. */
const get = async (key: string, path: string, headers: Record<string, string> = {}) => {
  const res = await api.call('GET', `${BASE}${path}`, { key, headers });
  expectMatchesDescription('GET', `${BASE}${path}`, res);
  return res;
};

/** A withdrawn or deleted resource is served as exactly these four fields. */
function expectTombstone(
  record: Record<string, unknown> | undefined,
  status: 'withdrawn' | 'deleted',
  id?: string,
): void {
  expect(record, 'the tombstone is there').toBeDefined();
  expect(Object.keys(record!).sort()).toEqual(['id', 'status', 'updated_at', 'version']);
  expect(record).toEqual({
    id: id ?? expect.any(String),
    status,
    version: expect.any(Number),
    updated_at: expect.any(String),
  });
}

async function events(key: string) {
  const res = await get(key, '/events?limit=500');
  expect(res.status).toBe(200);
  return res.json.data as { type: string; data: { object: string; id: string; version: number } }[];
}

describe('the platform write interface', () => {
  test('takes only the platform token, and the token opens nothing on the distribution interface', async () => {
    const { a } = await twoChannels();
    expectProblem(
      await api.call('PUT', '/internal/v1/organizations/x', { body: { name: 'X', country: 'RO' } }),
      401,
      'platform_token_invalid',
    );
    expectProblem(
      await api.call('PUT', '/internal/v1/organizations/x', { key: a.key, body: { name: 'X', country: 'RO' } }),
      401,
      'platform_token_invalid',
    );
    expectProblem(await api.call('GET', `${BASE}/channel`, { key: TEST_PLATFORM_TOKEN }), 401, 'invalid_api_key');
  });

  test('refuses a bad write whole, naming every failed rule, and writes nothing', async () => {
    const { org, owner, location } = await place();
    const body = {
      ...sampleProperty(location, owner),
      units: 0,
      city_tax_status: 'levied',
      name: { en: 'Only English <b>bold</b>' },
    };
    const res = await host.call('PUT', '/properties/bad-1', body);
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    const codes = (res.json.errors as { code: string; pointer: string }[]).map((e) => `${e.pointer} ${e.code}`);
    expect(codes).toEqual(expect.arrayContaining(['/units min', '/fees city_tax_fee']));
    expectProblem(await host.call('GET', '/properties/bad-1'), 404, 'not_found');

    const texts = await host.call('PUT', '/properties/bad-2', {
      ...sampleProperty(location, owner),
      name: { en: 'Only English <b>bold</b>' },
    });
    expect(texts.json.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/name', code: 'source_language_missing' }),
        expect.objectContaining({ pointer: '/name/en', code: 'text_html' }),
      ]),
    );
    const unknown = await host.call('PUT', '/properties/bad-3', { ...sampleProperty('no-such-location', owner) });
    expect(unknown.json.errors).toEqual([expect.objectContaining({ pointer: '/location', code: 'unknown_reference' })]);
    // Nothing was written, so the location is named by no property and can go.
    expect((await host.call('DELETE', `/locations/${location}`)).status).toBe(204);
    expect((await host.call('DELETE', `/owners/${owner}`)).status).toBe(204);
    expect((await host.call('DELETE', `/organizations/${org}`)).status).toBe(204);
  });

  test('a location named by a property cannot be deleted', async () => {
    const { owner, location } = await place();
    await host.property('in-use-1', { location, owner });
    expectProblem(await host.call('DELETE', `/locations/${location}`), 409, 'resource_in_use');
  });
});

describe('each channel sees its own view', () => {
  test('ids differ between channels, follow the contract patterns, and only the own extension shows', async () => {
    const { a, b } = await twoChannels();
    const { owner, location } = await place();
    await host.property('view-1', {
      location,
      owner,
      extensions: { [a.name]: { tier: 'gold' }, [b.name]: { group: 'b' } },
    });
    await host.distribute('view-1', [a.name, b.name]);

    const [pa, pb] = await Promise.all([get(a.key, '/properties'), get(b.key, '/properties')]);
    const [propA] = pa.json.data;
    const [propB] = pb.json.data;
    expect(propA.id).toMatch(ID_PATTERNS.property);
    expect(propA.id).not.toBe(propB.id);
    expect(propA.location_id).toMatch(ID_PATTERNS.location);
    expect(propA.owner_id).toMatch(ID_PATTERNS.owner);
    expect(propA.photos[0].id).toMatch(ID_PATTERNS.photo);
    expect(propA.rate_plans[0].id).toMatch(ID_PATTERNS.rate_plan);
    expect(propA.extensions).toEqual({ [a.name]: { tier: 'gold' } });
    expect(propB.extensions).toEqual({ [b.name]: { group: 'b' } });
    expect(propA.legal.classification.certificate_number).toBe('RO-123/2025');
    expect(propA.rate_plans[0].cancellation.text.ro).toBeTruthy();

    const one = await get(a.key, `/properties/${propA.id}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(propA);
    // Another channel's id, a malformed id and an unknown id are the same 404.
    for (const id of [propB.id, 'prp_nonsense', 'prp_0aaaaaaaaaaaaaaaaaaaaaaaaa']) {
      expectProblem(await get(a.key, `/properties/${id}`), 404, 'not_found');
    }
  });

  test('a change only another channel can see moves neither version nor log', async () => {
    const { a, b } = await twoChannels();
    const { owner, location } = await place();
    const base = { location, owner, extensions: { [a.name]: { tier: 'gold' } } };
    await host.property('invisible-1', base);
    await host.distribute('invisible-1', [a.name, b.name]);
    const before = {
      a: (await get(a.key, '/properties')).json.data[0],
      b: (await get(b.key, '/properties')).json.data[0],
    };
    const logA = await events(a.key);

    clock.advance(5_000);
    await host.property('invisible-1', {
      ...base,
      extensions: { [a.name]: { tier: 'gold' }, [b.name]: { group: 'new' } },
    });
    const after = {
      a: (await get(a.key, '/properties')).json.data[0],
      b: (await get(b.key, '/properties')).json.data[0],
    };
    expect(after.a).toEqual(before.a);
    expect(after.b.version).toBeGreaterThan(before.b.version);
    expect(await events(a.key)).toEqual(logA);
    expect((await events(b.key)).at(-1)).toMatchObject({
      type: 'property.updated',
      data: { id: after.b.id, version: after.b.version },
    });

    // The same write again changes nothing anywhere.
    await host.property('invisible-1', {
      ...base,
      extensions: { [a.name]: { tier: 'gold' }, [b.name]: { group: 'new' } },
    });
    expect((await get(b.key, '/properties')).json.data[0]).toEqual(after.b);
  });

  test('withdrawal is a tombstone on that channel only; a return keeps the id with a higher version', async () => {
    const { a, b } = await twoChannels();
    const { owner, location } = await place();
    await host.property('withdraw-1', { location, owner });
    await host.distribute('withdraw-1', [a.name, b.name]);
    const shown = (await get(a.key, '/properties')).json.data[0];
    const since = shown.updated_at;

    clock.advance(2_000);
    await host.distribute('withdraw-1', [b.name]);
    expect((await get(a.key, '/properties')).json.data).toEqual([]);
    const changes = await get(a.key, `/properties?updated_since=${since}`);
    const tombstone = changes.json.data.find((p: { id: string }) => p.id === shown.id);
    expect(tombstone).toEqual({
      id: shown.id,
      status: 'withdrawn',
      version: expect.any(Number),
      updated_at: expect.any(String),
    });
    expect(tombstone.version).toBeGreaterThan(shown.version);
    expect((await get(a.key, `/properties/${shown.id}`)).json).toEqual(tombstone);
    // The location and owner lose their only property on that channel.
    expect((await get(a.key, '/locations')).json.data).toEqual([]);
    const [locationRecord] = (await get(a.key, `/locations?updated_since=${since}`)).json.data;
    expectTombstone(locationRecord, 'withdrawn');
    const [ownerRecord] = (await get(a.key, `/owners?updated_since=${since}`)).json.data;
    expectTombstone(ownerRecord, 'withdrawn');
    expect((await events(a.key)).map((e) => e.type)).toEqual([
      'property.distributed',
      'location.updated',
      'owner.updated',
      'property.withdrawn',
      'location.updated',
      'owner.updated',
    ]);
    expect((await events(b.key)).map((e) => e.type)).toEqual([
      'property.distributed',
      'location.updated',
      'owner.updated',
    ]);
    expect((await get(b.key, '/properties')).json.data).toHaveLength(1);

    clock.advance(2_000);
    await host.distribute('withdraw-1', [a.name, b.name]);
    const back = (await get(a.key, '/properties')).json.data[0];
    expect(back.id).toBe(shown.id);
    expect(back.version).toBeGreaterThan(tombstone.version);
    expect((await events(a.key)).at(-3)).toMatchObject({
      type: 'property.distributed',
      data: { object: 'property', id: shown.id, version: back.version },
    });
  });

  test('deletion is final: a deleted tombstone and property.deleted', async () => {
    const { a } = await twoChannels();
    const { owner, location } = await place();
    await host.property('delete-1', { location, owner });
    await host.distribute('delete-1', [a.name]);
    const shown = (await get(a.key, '/properties')).json.data[0];
    await host.remove('properties', 'delete-1');
    expectTombstone((await get(a.key, `/properties/${shown.id}`)).json, 'deleted', shown.id);
    const [listed] = (await get(a.key, `/properties?updated_since=${shown.updated_at}`)).json.data;
    expectTombstone(listed, 'deleted', shown.id);
    expect((await events(a.key)).map((e) => e.type)).toContain('property.deleted');
    // A new property under the same reference is a new resource with a new id.
    await host.property('delete-1', { location, owner });
    await host.distribute('delete-1', [a.name]);
    const again = (await get(a.key, '/properties')).json.data[0];
    expect(again.id).not.toBe(shown.id);
  });

  test('status of a location and an owner follows the strongest status of their properties', async () => {
    const { a } = await twoChannels();
    const { owner, location } = await place();
    await host.property('status-1', { location, owner, status: 'inactive' });
    await host.property('status-2', { location, owner, status: 'inactive' });
    await host.distribute('status-1', [a.name]);
    await host.distribute('status-2', [a.name]);
    expect((await get(a.key, '/locations')).json.data[0].status).toBe('inactive');
    expect((await get(a.key, '/owners')).json.data[0].status).toBe('inactive');
    await host.property('status-2', { location, owner, status: 'active' });
    expect((await get(a.key, '/locations')).json.data[0].status).toBe('active');
    expect((await get(a.key, '/owners?status=active')).json.data).toHaveLength(1);
    expect((await get(a.key, '/properties?status=inactive')).json.data).toHaveLength(1);
  });
});

describe('legal and publication rules', () => {
  test('a Romanian property without a valid classification is not published; an Italian one needs its CIN', async () => {
    const { a } = await twoChannels();
    const ro = await place();
    await host.property('legal-ro', {
      location: ro.location,
      owner: ro.owner,
      legal: {
        classification: {
          certificate_number: 'X',
          category: 'apartament',
          rating_kind: 'stars',
          rating: 2,
          valid_until: '2026-01-01',
          country: 'RO',
        },
        registration_number: null,
        identifiers: [],
      },
    });
    await host.distribute('legal-ro', [a.name]);
    expect((await get(a.key, '/properties')).json.data).toEqual([]);

    const it = await place({
      location: {
        address: { country: 'IT', city: 'Firenze' },
        geo: { lat: 43.7696, lng: 11.2558 },
        timezone: 'Europe/Rome',
      },
    });
    const italian = {
      location: it.location,
      owner: it.owner,
      name: { it: 'Appartamento', en: 'Flat' },
      description: { it: 'Vicino al Duomo.' },
      photos: [],
      rate_plans: [
        {
          key: 'std',
          name: { it: 'Standard' },
          currency: 'EUR',
          cancellation: {
            refundable: false,
            free_until_days_before: null,
            penalty: 'full_stay',
            penalty_percent: null,
          },
        },
      ],
      fees: [],
    };
    await host.property('legal-it', {
      ...italian,
      legal: { classification: null, registration_number: null, identifiers: [] },
    });
    await host.distribute('legal-it', [a.name]);
    expect((await get(a.key, '/properties')).json.data).toEqual([]);
    await host.property('legal-it', {
      ...italian,
      legal: {
        classification: null,
        registration_number: null,
        identifiers: [{ scheme: 'it.cin', value: 'IT048017C2ABCDEFGH', valid_until: null, issued_by: null }],
      },
    });
    const [published] = (await get(a.key, '/properties')).json.data;
    expect(published.legal).toMatchObject({ classification: null, registration_number: 'IT048017C2ABCDEFGH' });
    expect(published.rate_plans[0].cancellation.text.en).toBeTruthy();
  });

  test('an approximate location hides the exact address; the point is stable, shared, and moves once with the radius', async () => {
    const { a, b } = await twoChannels();
    const { owner, location, org } = await place();
    await host.property('geo-1', { location, owner });
    await host.distribute('geo-1', [a.name, b.name]);
    const first = (await get(a.key, '/locations')).json.data[0];
    expect(first.address).toEqual({ country: 'RO', region: 'Brașov', city: 'Bran' });
    expect(first.address_visibility).toBe('approximate');
    expect(first.geo.precision_m).toBe(500);
    expect(first.geo).not.toMatchObject({ lat: 45.5152, lng: 25.3673 });
    expect((await get(b.key, '/locations')).json.data[0].geo).toEqual(first.geo);
    expect((await get(a.key, '/locations')).json.data[0]).toEqual(first);

    await host.location(location, { organization: org, owner, precision_m: 1000 });
    const moved = (await get(a.key, '/locations')).json.data[0];
    expect(moved.version).toBeGreaterThan(first.version);
    expect(moved.geo.precision_m).toBe(1000);
    expect(moved.geo.lat).not.toBe(first.geo.lat);
    await host.location(location, { organization: org, owner, precision_m: 1000 });
    expect((await get(a.key, '/locations')).json.data[0]).toEqual(moved);

    await host.location(location, { organization: org, owner, address_visibility: 'exact' });
    const exact = (await get(a.key, '/locations')).json.data[0];
    expect(exact.address).toMatchObject({ street: 'Strada Principală', number: '12', postal_code: '507025' });
    expect(exact.geo).toEqual({ lat: 45.5152, lng: 25.3673 });
    expect((await events(a.key)).filter((e) => e.type === 'location.updated')).toHaveLength(3);
  });

  test('a company owner gets the exact address by default', async () => {
    const { a } = await twoChannels();
    const { owner, location } = await place({ ownerType: 'company' });
    await host.property('company-1', { location, owner });
    await host.distribute('company-1', [a.name]);
    expect((await get(a.key, '/locations')).json.data[0].address_visibility).toBe('exact');
    expect((await get(a.key, '/owners')).json.data[0]).toMatchObject({
      type: 'company',
      company: { legal_name: 'Carpați Stays SRL' },
      connected_at: null,
    });
  });
});

describe('list rules', () => {
  test('limit, cursors bound to their query and channel, status filter, 410 and 304', async () => {
    const { a, b } = await twoChannels();
    const { owner, location } = await place();
    for (const ref of ['list-1', 'list-2', 'list-3']) {
      await host.property(ref, { location, owner });
      await host.distribute(ref, [a.name, b.name]);
      clock.advance(1_000);
    }
    expectProblem(await get(a.key, '/properties?limit=0'), 400, 'invalid_parameters', ['errors']);
    const over = await get(a.key, '/properties?limit=501');
    expectProblem(over, 400, 'invalid_parameters', ['errors']);
    expect(over.json.errors).toEqual([expect.objectContaining({ parameter: 'limit', code: 'max' })]);
    expectProblem(await get(a.key, '/properties?status=active,gone'), 400, 'invalid_parameters', ['errors']);
    expectProblem(await get(a.key, `/properties?cursor=${'x'.repeat(257)}`), 400, 'invalid_parameters', ['errors']);

    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(a.key, `/properties?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...res.json.data.map((p: { id: string }) => p.id));
      cursor = res.json.next_cursor;
    } while (cursor);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);

    const page = (await get(a.key, '/properties?limit=1')).json.next_cursor as string;
    expectProblem(
      await get(a.key, `/properties?limit=1&status=active&cursor=${encodeURIComponent(page)}`),
      400,
      'invalid_cursor',
    );
    expectProblem(await get(a.key, `/locations?cursor=${encodeURIComponent(page)}`), 400, 'invalid_cursor');
    expectProblem(await get(b.key, `/properties?cursor=${encodeURIComponent(page)}`), 400, 'invalid_cursor');
    const tampered = page.slice(0, -2) + (page.endsWith('AA') ? 'BA' : 'AA');
    expectProblem(await get(a.key, `/properties?cursor=${encodeURIComponent(tampered)}`), 400, 'invalid_cursor');

    const old = new Date(clock.now().getTime() - 36 * 86_400_000).toISOString();
    expectProblem(await get(a.key, `/properties?updated_since=${old}`), 410, 'sync_window_expired');
    expectProblem(await get(a.key, '/properties?updated_since=yesterday'), 400, 'invalid_parameters', ['errors']);
    const fraction = await get(
      a.key,
      `/properties?updated_since=${new Date(clock.now().getTime() - 60_000).toISOString()}`,
    );
    expect(fraction.status).toBe(200);
    expect((await get(a.key, '/properties?status=withdrawn')).json.data).toEqual([]);

    const full = await get(a.key, '/properties');
    expect(full.headers.etag).toMatch(/^W\//);
    const cached = await get(a.key, '/properties', { 'if-none-match': full.headers.etag as string });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
  });

  test('a page and a property answer 304 to their ETag until a record on them changes', async () => {
    const { a } = await twoChannels();
    const { owner, location } = await place();
    await host.property('etag-1', { location, owner, units: 2 });
    await host.distribute('etag-1', [a.name]);
    const list = await get(a.key, '/properties');
    const id = list.json.data[0].id as string;
    const one = await get(a.key, `/properties/${id}`);
    expect(one.headers.etag).toMatch(/^W\//);
    expect((await get(a.key, '/properties', { 'if-none-match': list.headers.etag as string })).status).toBe(304);
    expect((await get(a.key, `/properties/${id}`, { 'if-none-match': one.headers.etag as string })).status).toBe(304);

    clock.advance(1_000);
    await host.property('etag-1', { location, owner, units: 3 });
    const listAgain = await get(a.key, '/properties', { 'if-none-match': list.headers.etag as string });
    expect(listAgain.status).toBe(200);
    expect(listAgain.json.data[0]).toMatchObject({ id, units: 3 });
    expect(listAgain.headers.etag).not.toBe(list.headers.etag);
    const oneAgain = await get(a.key, `/properties/${id}`, { 'if-none-match': one.headers.etag as string });
    expect(oneAgain.status).toBe(200);
    expect(oneAgain.json).toMatchObject({ id, units: 3 });
  });

  test('the amenity catalogue pages like the other lists', async () => {
    const { a } = await twoChannels();
    const first = await get(a.key, '/amenities?limit=10');
    expect(first.json.data).toHaveLength(10);
    expect(first.json.data[0]).toMatchObject({ id: first.json.data[0].code, status: 'active', version: 1 });
    const all = await get(a.key, '/amenities?limit=500');
    expect(all.json.data).toHaveLength(AMENITIES.length);
    expect(all.json.next_cursor).toBeNull();
    const second = await get(a.key, `/amenities?limit=10&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(second.json.data[0].id).not.toBe(first.json.data[0].id);
    expect(first.headers['link']).toBe(
      `<${BASE}/amenities?limit=10&cursor=${encodeURIComponent(first.json.next_cursor)}>; rel="next"`,
    );
    expect(all.headers['link']).toBeUndefined();
    expect((await get(a.key, `/amenities?updated_since=${clock.now().toISOString()}`)).json.data).toEqual([]);
  });
});

describe('GET /events', () => {
  test('lists only the kinds the key covers, pages with a cursor, and refuses an old cursor', async () => {
    const catalog = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const { owner, location } = await place();
    await host.property('events-1', { location, owner });
    await host.distribute('events-1', [catalog.channel.name]);
    await host.property('events-1', { location, owner, units: 2 });

    const first = await get(catalog.key.key, '/events?limit=2');
    expect(first.json.data.map((e: { type: string }) => e.type)).toEqual(['property.distributed', 'location.updated']);
    expect(first.json.has_more).toBe(true);
    expect(first.json.data[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'property.distributed',
      occurred_at: expect.stringMatching(/Z$/),
      channel: catalog.channel.name,
      data: { object: 'property', id: expect.stringMatching(ID_PATTERNS.property), version: expect.any(Number) },
    });
    const rest = await get(catalog.key.key, `/events?cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(rest.json.data.map((e: { type: string }) => e.type)).toEqual(['owner.updated', 'property.updated']);
    expect(rest.json.has_more).toBe(false);
    // The log always has a cursor to poll with; only a page already waiting is linked.
    expect(first.headers['link']).toBe(
      `<${BASE}/events?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}>; rel="next"`,
    );
    expect(rest.headers['link']).toBeUndefined();
    const idle = await get(catalog.key.key, `/events?cursor=${encodeURIComponent(rest.json.next_cursor)}`);
    expect(idle.json).toMatchObject({ data: [], has_more: false });

    const { issueKey } = await import('../../admin/keys.ts');
    const ari = await issueKey(ctx, { channel: catalog.channel.name, scopes: 'read:ari' });
    // read:ari sees only the availability of the property, announced when it was distributed.
    expect(
      (await get(ari.key, '/events')).json.data.map((e: { type: string; data: { id: string } }) => [e.type, e.data.id]),
    ).toEqual([['availability.updated', first.json.data[0].data.id]]);
    const hooks = await channelWithKey(ctx, { scopes: ['manage:webhooks'] });
    expectProblem(await get(hooks.key.key, '/events'), 403, 'insufficient_scope', [
      'required_scopes',
      'required_scopes_match',
    ]);

    clock.advance(36 * 86_400_000);
    expectProblem(
      await get(catalog.key.key, `/events?cursor=${encodeURIComponent(idle.json.next_cursor)}`),
      410,
      'event_cursor_expired',
    );
    expectProblem(await get(catalog.key.key, '/events?cursor=garbage'), 400, 'invalid_cursor');

    // Kept 35 days, dropped after 36: the log then starts later.
    expect((await get(catalog.key.key, '/events')).json.data).toEqual([]);
    clock.advance(-36 * 86_400_000);
    expect((await keepAllPartitions(orm, clock.now(), ['event'])).event).toBe(0);
    expect(
      (await keepAllPartitions(orm, new Date(clock.now().getTime() + 37 * 86_400_000), ['event'])).event,
    ).toBeGreaterThanOrEqual(4);
    expect((await get(catalog.key.key, '/events')).json.data).toEqual([]);
    clock.advance(36 * 86_400_000);
  });
});
