import { beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import {
  isFullRecord,
  isTombstone,
  type ChannelClient,
  type Schema,
  type Tombstone,
} from '../../clients/channel-kit/src/index.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { kitClient } from '../support/channel-kit.ts';

/**
 * `isFullRecord`: a property, location, owner or amenity told from a tombstone, at run time on
 * what the real service serves, and at compile time (`npm run typecheck` checks the
 * `expectTypeOf` and `@ts-expect-error` lines below, which vitest runs as no-ops).
 */

let client: ChannelClient;
let kept: string;
let withdrawn: string;
let before: string;

beforeAll(async () => {
  const { host, api, channel, clock } = await apiTestBed();
  before = new Date(clock.now().getTime() - 3_600_000).toISOString();
  const made = await channel({ scopes: ['read:catalog'] });
  client = kitClient(api, made.key.key);
  await host.organization('kr-org');
  await host.owner('kr-own', { organization: 'kr-org' });
  await host.location('kr-loc', { organization: 'kr-org', owner: 'kr-own' });
  for (const ref of ['kr-kept', 'kr-withdrawn']) {
    await host.property(ref, { location: 'kr-loc', owner: 'kr-own', name: { ro: ref, en: ref } });
    await host.distribute(ref, [made.channel.name]);
  }
  const ids = new Map<string, string>();
  for await (const property of client.paginate('/properties')) {
    if (isFullRecord(property)) ids.set(property.name.en ?? '', property.id);
  }
  [kept, withdrawn] = [ids.get('kr-kept')!, ids.get('kr-withdrawn')!];
  // The host stops distributing one: the channel is served its tombstone from now on.
  await host.distribute('kr-withdrawn', []);
});

async function property(id: string) {
  const { data } = await client.GET('/properties/{property_id}', { params: { path: { property_id: id } } });
  return data!;
}

describe('a full record told from a tombstone', () => {
  test('a property the channel is served in full is a full record; a withdrawn one is a tombstone', async () => {
    const full = await property(kept);
    expect(isFullRecord(full)).toBe(true);
    expect(isTombstone(full)).toBe(false);
    const tombstone = await property(withdrawn);
    expect(Object.keys(tombstone).sort()).toEqual(['id', 'status', 'updated_at', 'version']);
    expect(tombstone.status).toBe('withdrawn');
    expect(isFullRecord(tombstone)).toBe(false);
    expect(isTombstone(tombstone)).toBe(true);
  });

  test('a change listing holds both, told apart record by record', async () => {
    const told: [string, boolean][] = [];
    for await (const record of client.paginate('/properties', { params: { query: { updated_since: before } } })) {
      told.push([record.id, isFullRecord(record)]);
    }
    expect(told.sort()).toEqual(
      [
        [kept, true],
        [withdrawn, false],
      ].sort(),
    );
  });

  test('withdrawn or deleted is a tombstone whatever it carries; under a status v1 adds, the fields tell', () => {
    const base = { id: 'prp_x', version: 3, updated_at: '2026-01-01T00:00:00Z' };
    expect(isFullRecord({ ...base, status: 'paused', location_id: 'loc_x' })).toBe(true);
    expect(isFullRecord({ ...base, status: 'archived' })).toBe(false);
    expect(isFullRecord({ ...base, status: 'deleted', location_id: 'loc_x' })).toBe(false);
  });

  test('the guard narrows both ways, on every kind of record (checked by typecheck)', () => {
    const check = (
      property: Schema<'PropertyOrTombstone'>,
      location: Schema<'Location'> | Tombstone,
      owner: Schema<'Owner'> | Tombstone,
      amenity: Schema<'Amenity'> | Tombstone,
    ) => {
      if (isFullRecord(property)) {
        expectTypeOf(property).toEqualTypeOf<Schema<'Property'>>();
        expectTypeOf(property.location_id).toEqualTypeOf<string>();
      } else {
        expectTypeOf(property).toEqualTypeOf<Tombstone>();
        // @ts-expect-error a tombstone has no location_id
        void property.location_id;
      }
      // Without the guard nothing tells them apart: `status` is a string on both.
      // @ts-expect-error location_id is not on every member of Property | Tombstone
      void property.location_id;
      if (isFullRecord(location)) expectTypeOf(location).toEqualTypeOf<Schema<'Location'>>();
      else expectTypeOf(location).toEqualTypeOf<Tombstone>();
      if (isFullRecord(owner)) expectTypeOf(owner).toEqualTypeOf<Schema<'Owner'>>();
      else expectTypeOf(owner).toEqualTypeOf<Tombstone>();
      if (!isFullRecord(amenity)) expectTypeOf(amenity).toEqualTypeOf<Tombstone>();
      else expectTypeOf(amenity.code).toEqualTypeOf<string>();
    };
    expect(typeof check).toBe('function');
  });
});
