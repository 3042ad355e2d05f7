import { beforeAll, describe, expect, test } from 'vitest';
import { ChannelSync, MemorySyncStore, type ChannelClient } from '../../clients/channel-kit/src/index.ts';
import { kitClient, startKitService } from '../support/channel-kit.ts';
import { channelWithKey } from '../support/fixtures.ts';

/**
 * The kit's sync helper against the real service, beyond what the reference channel's property
 * test drives (test/api/reference-channel.test.ts): the 410 resync, events, and availability.
 */

let service: Awaited<ReturnType<typeof startKitService>>;
let channelName: string;
let client: ChannelClient;

beforeAll(async () => {
  service = await startKitService('channel-kit-sync');
  const made = await channelWithKey(service.ctx, { scopes: ['read:catalog', 'read:ari'] });
  channelName = made.channel.name;
  client = kitClient(service.api, made.key.key, { fetch: service.fetch });
  await service.host.organization('ks-org');
  await service.host.owner('ks-own', { organization: 'ks-org' });
  await service.host.location('ks-loc', { organization: 'ks-org', owner: 'ks-own' });
  for (const ref of ['ks-p1', 'ks-p2']) {
    await service.host.property(ref, { location: 'ks-loc', owner: 'ks-own' });
    await service.host.distribute(ref, [channelName]);
  }
});

describe('the sync helper', () => {
  test('a watermark past the 35 days is answered 410: the list starts again, and what is no longer listed is dropped', async () => {
    const store = new MemorySyncStore();
    const stale = {
      id: 'prp_0zzzzzzzzzzzzzzzzzzzzzzzzz',
      status: 'active',
      version: 1,
      updated_at: '2026-01-01T00:00:00Z',
    };
    store.put('properties', stale);
    store.setWatermark('properties', new Date(Date.now() - 40 * 86_400_000).toISOString());
    const sync = new ChannelSync(client, { store, pageSize: 1 });
    const report = await sync.sync();
    expect(report.resynced).toEqual(['properties']);
    expect(report.since).toEqual({ locations: null, owners: null, properties: null });
    const listed = [];
    for await (const property of client.paginate('/properties')) listed.push(property.id);
    expect([...store.visible('properties').keys()].sort()).toEqual(listed.sort());
    expect(store.get('properties', stale.id)).toBeUndefined();
    expect(store.visible('locations').size).toBe(1);
    // The next sync asks for the changes since the largest updated_at received.
    const again = await sync.sync();
    expect(again.resynced).toEqual([]);
    expect(again.since.properties).toBe(store.watermark('properties'));
  });

  test('events say what to read: a property at a higher version, a location or owner by its list, nights always', async () => {
    const store = new MemorySyncStore();
    const sync = new ChannelSync(client, { store });
    let cursor: string | undefined;
    const outcomes = async () => {
      const seen: [string, string][] = [];
      for await (const page of client.pages('/events', { params: { query: cursor ? { cursor } : {} } })) {
        for (const event of page.data) seen.push([event.type, await sync.handleEvent(event)]);
        cursor = page.next_cursor;
      }
      return seen;
    };
    const first = await outcomes();
    expect(first).toEqual(
      expect.arrayContaining([
        ['property.distributed', 'read'],
        ['availability.updated', 'read'],
        ['location.updated', 'read'],
      ]),
    );
    expect(store.visible('properties').size).toBe(2);
    expect(store.visible('locations').size).toBe(1);
    expect(store.visible('owners').size).toBe(1);
    const [propertyId] = [...store.visible('properties').keys()];
    expect(store.nights(propertyId!).size).toBeGreaterThanOrEqual(365);

    // At least once, in any order: the same events again read only the nights.
    const versions = new Map([...store.visible('properties')].map(([id, record]) => [id, record.version]));
    const replayed = [];
    for await (const event of client.paginate('/events')) replayed.push([event.type, await sync.handleEvent(event)]);
    expect(new Set(replayed.filter(([type]) => type !== 'availability.updated').map(([, outcome]) => outcome))).toEqual(
      new Set(['up_to_date']),
    );

    // A change: its event brings the new version.
    await service.host.property('ks-p1', { location: 'ks-loc', owner: 'ks-own', units: 5 });
    const next = await outcomes();
    expect(next).toContainEqual(['property.updated', 'read']);
    const changed = [...store.visible('properties').values()].find((p) => p.units === 5)!;
    expect(changed.version).toBeGreaterThan(versions.get(changed.id)!);
  });

  test('with availability, a sync also pulls every property’s nights, then only those changed', async () => {
    const store = new MemorySyncStore();
    const sync = new ChannelSync(client, { store, availability: true });
    await sync.sync();
    const ids = [...store.visible('properties').keys()];
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(store.nights(id).size, id).toBeGreaterThanOrEqual(365);
    const watermark = store.watermark('availability');
    expect(watermark).toMatch(/Z$/);
    const again = await sync.sync();
    expect(again.requests).toBeGreaterThan(0);
    expect(store.watermark('availability')).toBe(watermark);
  });
});
