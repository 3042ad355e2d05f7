import { beforeAll, expect, test } from 'vitest';
import { inject } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { countEvents } from '../../db/catalogue/channel-log.ts';
import { systemClock } from '../../domain/clock.ts';
import { generateSandbox } from '../../services/sandbox-catalogue.ts';
import { generateSandboxAtFirstStart } from '../../services/sandbox-catalogue-first-start.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET, type TestApi } from '../support/api.ts';
import { runNode } from '../support/processes.ts';

const BASE = '/api/v1/distribution';
const CHANNELS = ['sbx-travel', 'sbx-stays'];
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

const generate = (extra: Record<string, string> = {}) =>
  runNode(
    'scripts/admin.ts',
    ['sandbox', 'generate', '--seed', '3', '--properties', '30', ...CHANNELS.flatMap((c) => ['--channel', c])],
    { ...env, ...extra },
  );

async function readAll(key: string, path: string): Promise<Record<string, any>[]> {
  const items = [];
  let cursor: string | null = null;
  do {
    const res = await api.call(
      'GET',
      `${BASE}${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      {
        key,
      },
    );
    expect(res.status, res.text).toBe(200);
    items.push(...res.json.data);
    cursor = res.json.next_cursor;
  } while (cursor);
  return items;
}

// In file order: the first-start cases need the empty database the bed begins with.
test('first start with a seed on an empty catalogue: two processes at once, one generates', async () => {
  const seeded = { ...ctx, config: { ...ctx.config, sandboxCatalogueSeed: 5 } };
  const outcomes = await Promise.all([generateSandboxAtFirstStart(seeded, 6), generateSandboxAtFirstStart(seeded, 6)]);
  expect(outcomes.sort()).toEqual(['generated', 'skipped']);
  const events = await countEvents(ctx.orm.em.fork());
  expect(events).toBeGreaterThan(0);
  // A later start finds the catalogue no longer empty.
  expect(await generateSandboxAtFirstStart(seeded, 6)).toBe('skipped');
  expect(await countEvents(ctx.orm.em.fork())).toBe(events);
});

test('production: the command and the first start refuse, and nothing is written', async () => {
  const before = await countEvents(ctx.orm.em.fork());
  const refused = await generate({ SVC_ENVIRONMENT: 'production' });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/only in a sandbox deployment/);
  const production = { ...ctx, config: { ...ctx.config, environment: 'production' as const, sandboxCatalogueSeed: 5 } };
  await expect(generateSandbox(production, { seed: 1, properties: 3, channels: CHANNELS })).rejects.toThrow(
    /only in a sandbox deployment/,
  );
  expect(await generateSandboxAtFirstStart(production, 3)).toBe('skipped');
  expect(await countEvents(ctx.orm.em.fork())).toBe(before);
});

test('sandbox generate writes 30 properties a channel reads through the service; a second run writes nothing', async () => {
  const first = await generate();
  expect(first.code, first.stderr).toBe(0);
  const report = JSON.parse(first.stdout);
  expect(report.records.properties).toBe(30);
  expect(Object.keys(report.properties_per_country).length).toBeGreaterThanOrEqual(5);
  expect(report.channels.created.sort()).toEqual([...CHANNELS].sort());
  expect(report.changes.events).toBeGreaterThan(0);
  expect(report.changes.nights_changed).toBeGreaterThan(0);

  const again = await generate();
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout).changes).toEqual({ records_created: 0, nights_changed: 0, events: 0 });

  const key = (await issueKey(ctx, { channel: CHANNELS[0]!, scopes: 'read:catalog,read:ari' })).key;
  const properties = (await readAll(key, '/properties')).filter((p) => p.status !== 'deleted');
  // Four in five properties go to every channel; the fifth to one channel in turn.
  expect(properties.length).toBeGreaterThanOrEqual(24);
  expect(properties.length).toBeLessThan(30);
  expect(properties.every((p) => Object.keys(p.extensions).join() === CHANNELS[0])).toBe(true);
  const countries = new Set((await readAll(key, '/locations')).map((l) => l.address.country));
  expect(countries.size).toBeGreaterThanOrEqual(5);
  // A year of priced nights: every record of the first page carries its 365 published nights, and
  // the best-priced of them a year of prices (which property comes first follows the order its
  // nights last changed in, and a few generated properties are mostly closed or unpriced).
  const nights = await api.call('GET', `${BASE}/availability?limit=10`, { key });
  expect(nights.status, nights.text).toBe(200);
  const records = nights.json.data as { data: { rates: { price?: unknown }[] }[] }[];
  expect(records.length).toBe(10);
  expect(Math.min(...records.map((record) => record.data.length))).toBeGreaterThanOrEqual(365);
  const priced = records.map(
    (record) => record.data.filter((night) => night.rates.some((rate) => rate.price !== undefined)).length,
  );
  expect(Math.max(...priced)).toBeGreaterThan(300);
});
