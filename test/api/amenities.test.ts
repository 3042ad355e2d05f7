import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import { applyAmenityRelease } from '../../db/amenities.ts';
import { AMENITIES } from '../../domain/catalogue/amenities.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { devServerClient } from '../support/temporal.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let clock: TestClock;
let orm: MikroORM;
let ctx: ReturnType<typeof adminContext>;

beforeAll(async () => {
  ({ orm } = await freshDatabase());
  const temporal = await devServerClient();
  clock = new TestClock('2026-11-22T10:00:00Z');
  ctx = adminContext(orm, temporal, clock);
  api = await startTestApi({ orm, temporal, clock, env: { AUTH_FAILURE_LIMIT: '1000' } });
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
  const release = AMENITIES.map((a) => a.code).filter((code) => code !== 'bar');
  await applyAmenityRelease(orm.em.fork(), release, clock.now());
  await applyAmenityRelease(orm.em.fork(), release, clock.now());

  const changes = (await get(key.key, `/amenities?updated_since=${since}`)).json.data;
  expect(changes).toEqual([{ id: 'bar', status: 'deleted', version: expect.any(Number), updated_at: clock.now().toISOString().replace('.000Z', 'Z') }]);
  expect(changes[0].version).toBeGreaterThan(bar.version);
  const full = (await get(key.key, '/amenities?limit=500')).json.data.map((a: { id: string }) => a.id);
  expect(full).toHaveLength(AMENITIES.length - 1);
  expect(full).not.toContain('bar');

  const events = (await get(key.key, '/events?limit=500')).json.data.filter((e: { type: string }) => e.type === 'amenity.deleted');
  expect(events.map((e: { data: unknown }) => e.data)).toEqual([{ object: 'amenity', id: 'bar', version: changes[0].version }]);
});
