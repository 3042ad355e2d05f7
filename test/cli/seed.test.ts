import { beforeAll, expect, test } from 'vitest';
import { inject } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { DEMO_CHANNELS } from '../../admin/demo-catalogue.ts';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { runNode } from '../support/processes.ts';

const BASE = '/api/v1/distribution';
let env: Record<string, string>;
let api: TestApi;
let ctx: AdminContext;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  ({ api, ctx } = bed);
  env = {
    DATABASE_URL: bed.databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    LOG_LEVEL: 'silent',
    SERVER_SECRET: TEST_SERVER_SECRET,
    PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
  };
});

async function readAll(key: string, path: string): Promise<Record<string, any>[]> {
  const items = [];
  let cursor: string | null = null;
  do {
    const res = await api.call(
      'GET',
      `${BASE}${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.data);
    cursor = res.json.next_cursor;
  } while (cursor);
  return items;
}

test('seed demo loads a catalogue two channels read with their own ids; a second run changes nothing', async () => {
  const first = await runNode('scripts/admin.ts', ['seed', 'demo'], env);
  expect(first.code, first.stderr).toBe(0);
  const report = JSON.parse(first.stdout);
  expect(report.channels).toEqual([
    { name: DEMO_CHANNELS.first, created: true },
    { name: DEMO_CHANNELS.second, created: true },
  ]);
  expect(report.properties.length).toBeGreaterThanOrEqual(6);
  expect(report.channel_changes).toBeGreaterThan(0);

  const again = await runNode('scripts/admin.ts', ['seed', 'demo'], env);
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({
    channel_changes: 0,
    channels: [{ created: false }, { created: false }],
  });

  // One demo installation, its token printed by the first run only, reading its organization's guests.
  expect(report.integration.installation).toMatchObject({
    app: 'demo-crm',
    created: true,
    token: expect.stringMatching(/^svci_test_/),
  });
  expect(JSON.parse(again.stdout).integration.installation).toMatchObject({
    id: report.integration.installation.id,
    created: false,
    token: null,
  });
  const guests = await api.call('GET', '/api/v1/integration/guests', { key: report.integration.installation.token });
  expect(guests.status, guests.text).toBe(200);
  expect(guests.json.data.length).toBeGreaterThan(0);
  expect(guests.json.data.length).toBeLessThan(report.integration.guests.length);
  expect(new Set(guests.json.data.map((g: { organization_id: string }) => g.organization_id)).size).toBe(1);

  const keys = {
    first: (await issueKey(ctx, { channel: DEMO_CHANNELS.first, scopes: 'read:catalog' })).key,
    second: (await issueKey(ctx, { channel: DEMO_CHANNELS.second, scopes: 'read:catalog' })).key,
  };
  const views: Record<string, Record<string, Record<string, any>[]>> = {};
  for (const [channel, key] of Object.entries(keys)) {
    views[channel] = {};
    for (const list of ['locations', 'owners', 'properties', 'amenities'])
      views[channel][list] = await readAll(key, `/${list}`);
    for (const property of views[channel].properties!) {
      expect(property.id).toMatch(ID_PATTERNS.property);
      expect(property.location_id).toMatch(ID_PATTERNS.location);
      expect(property.owner_id).toMatch(ID_PATTERNS.owner);
      const one = await api.call('GET', `${BASE}/properties/${property.id}`, { key });
      expect(one.json).toEqual(property);
      // Every location and owner a property names is listed to the same channel.
      expect(views[channel].locations!.map((l) => l.id)).toContain(property.location_id);
      expect(views[channel].owners!.map((o) => o.id)).toContain(property.owner_id);
    }
  }
  const firstIds = new Set(views.first!.properties!.map((p) => p.id));
  expect(views.second!.properties!.some((p) => firstIds.has(p.id))).toBe(false);
  // Not every property goes to both channels.
  expect(views.first!.properties!.length).not.toBe(report.properties.length);
  const countries = new Set(views.first!.locations!.map((l) => l.address.country));
  expect([...countries].sort()).toEqual(['IT', 'RO']);
  expect(
    views.first!.locations!.some((l) => l.address_visibility === 'approximate' && l.address.street === undefined),
  ).toBe(true);
  expect(new Set([...views.first!.properties!, ...views.second!.properties!].map((p) => p.city_tax_status))).toEqual(
    new Set(['levied', 'none', 'undeclared']),
  );

  // A year of priced nights for every property the channel sees.
  const ari = (await issueKey(ctx, { channel: DEMO_CHANNELS.first, scopes: 'read:ari' })).key;
  const availability = await api.call('GET', `${BASE}/availability?limit=500`, { key: ari });
  expect(availability.status).toBe(200);
  expect(report.availability.nights_changed).toBeGreaterThan(0);
  expect(JSON.parse(again.stdout).availability.nights_changed).toBe(0);
  for (const record of availability.json.data as Record<string, any>[]) {
    expect(record.data.length).toBeGreaterThanOrEqual(365);
    expect(
      record.data[0].rates.every((rate: { price: unknown; closed: boolean }) => rate.price !== null && !rate.closed),
    ).toBe(true);
  }
  expect(
    new Set(
      availability.json.data.flatMap((r: Record<string, any>) => r.data.map((n: { min_stay: number }) => n.min_stay)),
    ).size,
  ).toBeGreaterThan(1);

  // Listing reports from both channels with a history, and 30 days of statistics per property
  // each sees; a second run writes no report again and stores the same days.
  const shown = views.first!.properties!.length + views.second!.properties!.length;
  expect(report.listings.reports_written).toBeGreaterThan(shown);
  expect(report.listings.days).toBe(30 * shown);
  expect(JSON.parse(again.stdout).listings).toEqual({ reports_written: 0, days: 30 * shown });
  const host = platform(api);
  const attic = await host.call('GET', '/properties/demo-prop-casa-bran-attic/listings');
  expect(attic.status, attic.text).toBe(200);
  const byChannel = Object.fromEntries(attic.json.data.map((entry: { channel: string }) => [entry.channel, entry]));
  expect(byChannel[DEMO_CHANNELS.first]).toMatchObject({
    status: 'rejected',
    rejection: { reason: 'photos' },
    history: [{ status: 'rejected' }, { status: 'pending_review' }],
  });
  expect(byChannel[DEMO_CHANNELS.second]).toMatchObject({
    status: 'published',
    public_url: expect.stringMatching(/^https:\/\/demo-stays\.example\//),
  });
  const from = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const figures = await host.call('GET', `/properties/demo-prop-casa-bran-attic/stats?from=${from}&to=${to}`);
  expect(
    figures.json.data.map((entry: { channel: string; days: unknown[] }) => [entry.channel, entry.days.length]),
  ).toEqual(
    [
      [DEMO_CHANNELS.first, 30],
      [DEMO_CHANNELS.second, 30],
    ].sort(),
  );

  // Withdrawing a property from one channel is a tombstone and an event there only.
  const shared = Object.entries(report.distribution as Record<string, string[]>).find(
    ([, channels]) => channels.length === 2,
  )![0];
  const eventsBefore = { first: await readAllEvents(keys.first), second: await readAllEvents(keys.second) };
  await platform(api).distribute(shared, [DEMO_CHANNELS.second]);
  const after = { first: await readAllEvents(keys.first), second: await readAllEvents(keys.second) };
  expect(after.second).toEqual(eventsBefore.second);
  expect(after.first.slice(eventsBefore.first.length).map((e) => e.type)[0]).toBe('property.withdrawn');
  const withdrawn = after.first.at(-after.first.length + eventsBefore.first.length)!.data.id as string;
  const tombstone = await api.call('GET', `${BASE}/properties/${withdrawn}`, { key: keys.first });
  expect(Object.keys(tombstone.json).sort()).toEqual(['id', 'status', 'updated_at', 'version']);
  expect(tombstone.json.status).toBe('withdrawn');
  expect(await readAll(keys.second, '/properties')).toEqual(views.second!.properties);
});

async function readAllEvents(key: string): Promise<Record<string, any>[]> {
  const res = await api.call('GET', `${BASE}/events?limit=500`, { key });
  expect(res.status).toBe(200);
  return res.json.data;
}
