import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { eventAndDeliveryCounts, listingTables, pointers, problemWithoutRequestId } from '../support/listings.ts';
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

let counter = 0;
/** A channel (reading and reporting) shown `count` fresh properties; their refs and the channel's ids for them. */
async function setup(count = 1) {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] });
  const p = `lst${counter}`;
  await host.organization(`${p}-org`);
  await host.owner(`${p}-own`, { organization: `${p}-org` });
  await host.location(`${p}-loc`, { organization: `${p}-org`, owner: `${p}-own` });
  const refs = Array.from({ length: count }, (_, i) => `${p}-p${i}`);
  const ids: string[] = [];
  for (const ref of refs) {
    await host.property(ref, { location: `${p}-loc`, owner: `${p}-own` });
    await host.distribute(ref, [channel.name]);
    // The channel's id of this property: the one its list did not show before.
    const list = await api.call('GET', `${BASE}/properties?limit=10`, { key: key.key });
    const fresh = (list.json.data as { id: string }[]).map((property) => property.id).filter((id) => !ids.includes(id));
    expect(fresh).toHaveLength(1);
    ids.push(fresh[0]!);
  }
  return { channel: channel.name, key: key.key, refs, ids };
}

const put = async (key: string, id: string, body: unknown) => {
  const res = await api.call('PUT', `${BASE}/properties/${id}/listing`, { key, body });
  expectMatchesDescription('PUT', `${BASE}/properties/${id}/listing`, res);
  return res;
};
const read = async (key: string, id: string) => {
  const res = await api.call('GET', `${BASE}/properties/${id}/listing`, { key });
  expectMatchesDescription('GET', `${BASE}/properties/${id}/listing`, res);
  return res;
};

const PUBLISHED = {
  status: 'published',
  public_url: 'https://travel.example/stay/1',
  promoted: true,
  promoted_until: '2026-12-31T22:00:00.500Z',
};

describe('PUT and GET /properties/{property_id}/listing', () => {
  test('the report is stored and read back; 404 until one was sent', async () => {
    const { key, ids } = await setup();
    const id = ids[0]!;
    expectProblem(await read(key, id), 404, 'not_found');
    const res = await put(key, id, PUBLISHED);
    expect(res.status, res.text).toBe(200);
    const expected = {
      property_id: id,
      status: 'published',
      public_url: 'https://travel.example/stay/1',
      promoted: true,
      promoted_until: '2026-12-31T22:00:00Z',
      rejection: null,
      updated_at: '2026-11-22T10:00:00Z',
      received_at: '2026-11-22T10:00:00Z',
    };
    expect(res.json).toEqual(expected);
    expect((await read(key, id)).json).toEqual(expected);
  });

  test('a public URL of exactly 2048 characters is taken, and a promotion with no end is stored with promoted_until null', async () => {
    const { key, ids } = await setup();
    const url = `https://travel.example/${'a'.repeat(2048 - 'https://travel.example/'.length)}`;
    expect(url).toHaveLength(2048);
    const res = await put(key, ids[0]!, { status: 'published', public_url: url, promoted: true, promoted_until: null });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ public_url: url, promoted: true, promoted_until: null });
    expect((await read(key, ids[0]!)).json).toMatchObject({ public_url: url, promoted: true, promoted_until: null });
  });

  test('the public URL is stored and answered in its WHATWG serialisation', async () => {
    const { key, ids } = await setup();
    const res = await put(key, ids[0]!, {
      status: 'published',
      public_url: 'https://Travel.EXAMPLE:443/a/../stay/ș?q=1#top',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.public_url).toBe('https://travel.example/stay/%C8%99?q=1#top');
    expect((await read(key, ids[0]!)).json.public_url).toBe('https://travel.example/stay/%C8%99?q=1#top');
  });

  test('an identical report keeps updated_at and gets a new received_at; a change moves both and is kept in the history', async () => {
    const { key, ids, refs } = await setup();
    const id = ids[0]!;
    await put(key, id, { status: 'pending_review' });
    clock.advance(60_000);
    const again = await put(key, id, {
      status: 'pending_review',
      public_url: null,
      promoted: false,
      promoted_until: null,
      rejection: null,
    });
    expect(again.json).toMatchObject({ updated_at: '2026-11-22T10:00:00Z', received_at: '2026-11-22T10:01:00Z' });
    clock.advance(60_000);
    const rejected = await put(key, id, {
      status: 'rejected',
      rejection: { reason: 'photos', text: 'Blurry photos.' },
    });
    expect(rejected.json).toMatchObject({
      status: 'rejected',
      rejection: { reason: 'photos', text: 'Blurry photos.' },
      updated_at: '2026-11-22T10:02:00Z',
      received_at: '2026-11-22T10:02:00Z',
    });
    clock.advance(60_000);
    await put(key, id, { status: 'published', public_url: 'https://travel.example/stay/2' });
    const listings = await host.call('GET', `/properties/${refs[0]}/listings`);
    expect(listings.status, listings.text).toBe(200);
    expect(listings.json.data).toHaveLength(1);
    expect(listings.json.data[0]).toMatchObject({
      property_id: id,
      status: 'published',
      public_url: 'https://travel.example/stay/2',
      updated_at: '2026-11-22T10:03:00Z',
      received_at: '2026-11-22T10:03:00Z',
    });
    expect(
      listings.json.data[0].history.map((h: { status: string; changed_at: string }) => [h.status, h.changed_at]),
    ).toEqual([
      ['published', '2026-11-22T10:03:00Z'],
      ['rejected', '2026-11-22T10:02:00Z'],
      ['pending_review', '2026-11-22T10:00:00Z'],
    ]);
    expect(listings.json.data[0].history[1]).toMatchObject({ rejection: { reason: 'photos', text: 'Blurry photos.' } });
    clock.set('2026-11-22T10:00:00Z');
  });

  test('the report read back is taken when sent back: its property_id is accepted and its updated_at and received_at are ignored', async () => {
    const { key, ids } = await setup();
    const id = ids[0]!;
    await put(key, id, PUBLISHED);
    clock.advance(60_000);
    const back = (await read(key, id)).json;
    expect(Object.keys(back)).toEqual(expect.arrayContaining(['property_id', 'updated_at', 'received_at']));
    const res = await put(key, id, {
      ...back,
      promoted: false,
      promoted_until: null,
      updated_at: '2001-01-01T00:00:00+02:00',
      received_at: '2001-01-01T00:00:00.5Z',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      ...back,
      promoted: false,
      promoted_until: null,
      updated_at: '2026-11-22T10:01:00Z',
      received_at: '2026-11-22T10:01:00Z',
    });
    clock.set('2026-11-22T10:00:00Z');
  });

  test('an unknown status is stored as reported (open enum)', async () => {
    const { key, ids } = await setup();
    const res = await put(key, ids[0]!, { status: 'archived_by_host' });
    expect(res.status, res.text).toBe(200);
    expect((await read(key, ids[0]!)).json).toMatchObject({
      status: 'archived_by_host',
      public_url: null,
      rejection: null,
    });
  });

  test.each([
    ['published without a URL', { status: 'published' }, [['/public_url', 'required']]],
    [
      'a plain-HTTP URL',
      { status: 'published', public_url: 'http://travel.example/stay/1' },
      [['/public_url', 'https_only']],
    ],
    ['a URL without a host', { status: 'published', public_url: 'https://' }, [['/public_url', 'https_only']]],
    [
      'a URL over 2048 characters',
      { status: 'published', public_url: `https://travel.example/${'a'.repeat(2030)}` },
      [['/public_url', 'max']],
    ],
    [
      'a URL with a space',
      { status: 'published', public_url: 'https://x.example/ javascript:alert(1)' },
      [['/public_url', 'url_characters']],
    ],
    [
      'a URL with a quote',
      { status: 'published', public_url: 'https://x.example/"onclick="alert(1)' },
      [['/public_url', 'url_characters']],
    ],
    [
      'a URL with a control character',
      { status: 'published', public_url: 'https://x.example/\u0007' },
      [['/public_url', 'url_characters']],
    ],
    [
      'a URL over 2048 characters once normalised',
      { status: 'published', public_url: `https://travel.example/${'ș'.repeat(400)}` },
      [['/public_url', 'max']],
    ],
    [
      'a URL with another status',
      { status: 'unpublished', public_url: 'https://travel.example/stay/1' },
      [['/public_url', 'not_allowed']],
    ],
    ['rejected without a rejection', { status: 'rejected' }, [['/rejection', 'required']]],
    [
      'a rejection with another status',
      { status: 'pending_review', rejection: { reason: 'photos', text: null } },
      [['/rejection', 'not_allowed']],
    ],
    [
      'a rejection reason that is not a word',
      { status: 'rejected', rejection: { reason: 'Bad Photos', text: null } },
      [['/rejection/reason', 'regex']],
    ],
    [
      'an end of promotion without a promotion',
      { status: 'unpublished', promoted: false, promoted_until: '2026-12-01T00:00:00Z' },
      [['/promoted_until', 'not_allowed']],
    ],
    [
      'a promotion end that is not an instant',
      { status: 'unpublished', promoted: true, promoted_until: 'tomorrow' },
      [['/promoted_until', 'date_format']],
    ],
    [
      'a status in capitals',
      { status: 'Published', public_url: 'https://travel.example/stay/1' },
      [['/status', 'regex']],
    ],
    ['a status over 40 characters', { status: 'a'.repeat(41) }, [['/status', 'regex']]],
    [
      'no status and an unknown field',
      { promoted: false, colour: 'red' },
      [
        ['/status', 'required'],
        ['/colour', 'unknown_field'],
      ],
    ],
    [
      'the property_id of another property',
      { status: 'unpublished', property_id: 'prp_0aaaaaaaaaaaaaaaaaaaaaaaaa' },
      [['/property_id', 'path_mismatch']],
    ],
    [
      'a received_at that is not an instant, beside another failed rule',
      { status: 'Unpublished', received_at: 'yesterday' },
      [
        ['/status', 'regex'],
        ['/received_at', 'date_format'],
      ],
    ],
  ])('refused, writing nothing: %s', async (_name, body, expected) => {
    const { key, ids } = await setup();
    await put(key, ids[0]!, { status: 'pending_review' });
    const before = await listingTables(orm);
    clock.advance(1000);
    const res = await put(key, ids[0]!, body);
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(pointers(res)).toEqual(expected);
    expect(await listingTables(orm)).toEqual(before);
  });

  test("404, identical in every case, for a property without a report or the channel does not see: unknown, malformed, another channel's, withdrawn, deleted", async () => {
    const { key, ids, refs } = await setup(4);
    const other = await setup();
    for (const id of ids.slice(0, 3)) expect((await put(key, id, { status: 'pending_review' })).status).toBe(200);
    await host.distribute(refs[1]!, []);
    await host.remove('properties', refs[2]!);
    const before = await listingTables(orm);
    const unseen = ['prp_0aaaaaaaaaaaaaaaaaaaaaaaaa', 'not-an-id', other.ids[0]!, ids[1]!, ids[2]!];
    const bodies = new Set<string>();
    for (const id of unseen) {
      for (const res of [await read(key, id), await put(key, id, { status: 'unpublished' })]) {
        expectProblem(res, 404, 'not_found');
        bodies.add(problemWithoutRequestId(res));
      }
    }
    // A property seen but never reported on is read with the same answer.
    const unreported = await read(key, ids[3]!);
    expectProblem(unreported, 404, 'not_found');
    bodies.add(problemWithoutRequestId(unreported));
    expect(bodies.size).toBe(1);
    expect(await listingTables(orm)).toEqual(before);
    // The reported property still seen is unaffected.
    expect((await read(key, ids[0]!)).status).toBe(200);
  });

  test('the read and the write need scope write:listings', async () => {
    const { ids, channel } = await setup();
    const readOnly = await issueKey(ctx, { channel, scopes: 'read:catalog' });
    for (const res of [
      await read(readOnly.key, ids[0]!),
      await put(readOnly.key, ids[0]!, { status: 'unpublished' }),
    ]) {
      expectProblem(res, 403, 'insufficient_scope', ['required_scopes']);
      expect(res.json.required_scopes).toEqual(['write:listings']);
    }
  });

  test('a report and a statistics report write no event and no webhook delivery', async () => {
    const { key, ids } = await setup();
    const before = await eventAndDeliveryCounts(orm);
    await put(key, ids[0]!, PUBLISHED);
    const stats = await api.call('POST', `${BASE}/listing-stats`, {
      key,
      body: { data: [{ property_id: ids[0], date: '2026-11-21', views: 3, clicks_to_booking: 1 }] },
    });
    expect(stats.json).toEqual({ accepted: 1 });
    expect(await eventAndDeliveryCounts(orm)).toEqual(before);
  });
});

describe('GET /internal/v1/properties/{ref}/listings', () => {
  test("each channel's current report by channel name; a property without reports lists none; an unknown ref is 404", async () => {
    const a = await setup();
    const b = await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] });
    await host.distribute(a.refs[0]!, [a.channel, b.channel.name]);
    const empty = await host.call('GET', `/properties/${a.refs[0]}/listings`);
    expect(empty.json).toEqual({ property: a.refs[0], data: [] });
    const bList = await api.call('GET', `${BASE}/properties`, { key: b.key.key });
    const bId = bList.json.data[0].id as string;
    await put(b.key.key, bId, { status: 'rejected', rejection: { reason: 'legal' } });
    await put(a.key, a.ids[0]!, PUBLISHED);
    const res = await host.call('GET', `/properties/${a.refs[0]}/listings`);
    const names = [a.channel, b.channel.name].sort();
    expect(res.json.data.map((entry: { channel: string }) => entry.channel)).toEqual(names);
    const bEntry = res.json.data.find((entry: { channel: string }) => entry.channel === b.channel.name);
    expect(bEntry).toMatchObject({
      property_id: bId,
      status: 'rejected',
      rejection: { reason: 'legal', text: null },
      history: [expect.objectContaining({ status: 'rejected' })],
    });
    expect((await host.call('GET', '/properties/no-such-ref/listings')).status).toBe(404);
  });
});
