import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { applyAmenityRelease } from '../../db/amenities.ts';
import { AMENITIES } from '../../domain/catalogue/amenities.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let clock: TestClock;
let orm: MikroORM;
let ctx: AdminContext;

beforeAll(async () => {
  ({ api, clock, ctx, orm } = await apiTestBed());
});

const get = async (key: string, path: string) => {
  const res = await api.call('GET', `${BASE}${path}`, { key });
  expectMatchesDescription('GET', `${BASE}${path}`, res);
  return res;
};

test('a release that retires an amenity lists it as a deleted tombstone under updated_since and announces amenity.deleted once', async () => {
  const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
  const since = clock.now().toISOString();
  const bar = (await get(key.key, '/amenities?limit=500')).json.data.find((a: { id: string }) => a.id === 'bar');
  expect(bar).toMatchObject({ status: 'active' });

  // The next release ships without `bar`.
  clock.advance(60_000);
  const release = AMENITIES.filter((a) => a.code !== 'bar');
  await applyAmenityRelease(orm.em.fork(), release, clock.now());
  await applyAmenityRelease(orm.em.fork(), release, clock.now());

  const changes = (await get(key.key, `/amenities?updated_since=${since}`)).json.data;
  expect(changes).toEqual([
    {
      id: 'bar',
      status: 'deleted',
      version: expect.any(Number),
      updated_at: clock.now().toISOString().replace('.000Z', 'Z'),
    },
  ]);
  expect(changes[0].version).toBeGreaterThan(bar.version);
  const full = (await get(key.key, '/amenities?limit=500')).json.data.map((a: { id: string }) => a.id);
  expect(full).toHaveLength(AMENITIES.length - 1);
  expect(full).not.toContain('bar');

  const events = (await get(key.key, '/events?limit=500')).json.data.filter(
    (e: { type: string }) => e.type === 'amenity.deleted',
  );
  expect(events.map((e: { data: unknown }) => e.data)).toEqual([
    { object: 'amenity', id: 'bar', version: changes[0].version },
  ]);
});

test("a release that changes an amenity's name, category or OTA code gives it a higher version and updated_at, lists it under updated_since and announces amenity.updated", async () => {
  const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
  // The release served so far named these three differently from the one shipped now.
  clock.advance(60_000);
  const older = AMENITIES.map((a) => {
    if (a.code === 'wifi') return { ...a, name: { ...a.name, en: 'Wireless internet' } };
    if (a.code === 'kettle') return { ...a, category: 'general' as const };
    if (a.code === 'garage')
      return { ...a, ota_code: { list: 'HAC' as const, code: 1 }, ota_codes: [{ list: 'HAC' as const, code: 1 }] };
    return a;
  });
  await applyAmenityRelease(orm.em.fork(), older, clock.now());
  const before = new Map(
    ((await get(key.key, '/amenities?limit=500')).json.data as { id: string; version: number }[]).map((a) => [
      a.id,
      a.version,
    ]),
  );
  const eventsBefore = (await get(key.key, '/events?limit=500')).json.data.length as number;

  clock.advance(60_000);
  const since = clock.now().toISOString();
  expect(await applyAmenityRelease(orm.em.fork(), AMENITIES, clock.now())).toEqual({
    added: [],
    changed: ['garage', 'kettle', 'wifi'],
    retired: [],
  });
  expect(await applyAmenityRelease(orm.em.fork(), AMENITIES, clock.now())).toEqual({
    added: [],
    changed: [],
    retired: [],
  });

  const changes = (await get(key.key, `/amenities?updated_since=${since}`)).json.data as {
    id: string;
    version: number;
    updated_at: string;
    name: { en: string };
    category: string;
    ota_code: unknown;
  }[];
  expect(changes.map((a) => a.id)).toEqual(['garage', 'kettle', 'wifi']);
  for (const amenity of changes) {
    expect(amenity.version).toBeGreaterThan(before.get(amenity.id)!);
    expect(amenity.updated_at).toBe(since.replace('.000Z', 'Z'));
  }
  expect(changes.find((a) => a.id === 'wifi')!.name.en).toBe('Wi-Fi');
  expect(changes.find((a) => a.id === 'kettle')!.category).toBe('kitchen');
  expect(changes.find((a) => a.id === 'garage')!.ota_code).toEqual({ list: 'HAC', code: 53 });

  const events = ((await get(key.key, '/events?limit=500')).json.data as { type: string; data: unknown }[]).slice(
    eventsBefore,
  );
  expect(events.map((e) => [e.type, e.data])).toEqual(
    changes.map((a) => ['amenity.updated', { object: 'amenity', id: a.id, version: a.version }]),
  );
});

test('an amenity served before its definition was kept is announced as changed once', async () => {
  clock.advance(60_000);
  await orm.em.fork().execute(`update amenity_release set definition = null where code = 'tv'`);
  expect(await applyAmenityRelease(orm.em.fork(), AMENITIES, clock.now())).toMatchObject({ changed: ['tv'] });
  expect(await applyAmenityRelease(orm.em.fork(), AMENITIES, clock.now())).toMatchObject({ changed: [] });
});
