import { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, describe, expect, test } from 'vitest';
import { ormOptions } from '../../db/orm.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { generateIntegrationToken } from '../../domain/integration-tokens.ts';
import { startTestApi, TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { onCleanup } from '../support/cleanup.ts';
import { TestClock } from '../support/clock.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

// Past the failed-authentication limit an address is answered 429 for the rest of the window
// before any database work, except with a credential this API process already found usable.

const CHANNEL = '/api/v1/distribution/channel';
const GUESTS = '/api/v1/integration/guests';
const ORGANIZATION = '/internal/v1/organizations/lockout-org';

/** Every connection the API takes from its pool: no statement reaches the database without one. */
let statements: string[];
let api: TestApi;
let clock: TestClock;
let channelKey: string;
let unseenKey: string;
let appToken: string;

beforeAll(async () => {
  const { url } = await freshDatabase();
  statements = [];
  const orm = await MikroORM.init(ormOptions(url));
  onCleanup(() => orm.close(true));
  const pool = (await orm.em.getConnection().getNativeClient()) as unknown as {
    on: (event: 'acquire', listener: () => void) => void;
  };
  pool.on('acquire', () => void statements.push(new Error('acquired').stack ?? ''));
  clock = new TestClock('2026-11-22T10:00:05Z');
  const temporal = await devServerClient();
  api = await startTestApi({ orm, temporal, clock, env: { AUTH_FAILURE_LIMIT: '3' } });
  const ctx = adminContext(orm, temporal, clock);
  channelKey = (await channelWithKey(ctx)).key.key;
  unseenKey = (await channelWithKey(ctx)).key.key;
  const host = platform(api);
  await host.organization('lockout-org');
  const installed = (
    await host.call('POST', '/organizations/lockout-org/installations', { app: 'crm', scopes: ['guests.read'] })
  ).json;
  appToken = (await host.call('POST', `/installations/${installed.id as string}/token`)).json.token as string;
  expect(statements.length, 'the pool reports the API connections').toBeGreaterThan(0);
  // Both become known to this process as usable.
  expect((await api.call('GET', CHANNEL, { key: channelKey })).status).toBe(200);
  expect((await api.call('GET', GUESTS, { key: appToken })).status).toBe(200);
});

describe('an address past the failed-authentication limit', () => {
  test('is answered 429 without a database statement, except with a key or token this process found usable; the window ends it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await api.call('GET', CHANNEL, { key: generateApiKey('sandbox') })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);

    statements.length = 0;
    const refused = [
      await api.call('GET', CHANNEL),
      await api.call('GET', CHANNEL, { key: 'malformed' }),
      await api.call('GET', CHANNEL, { key: generateApiKey('sandbox') }),
      await api.call('GET', CHANNEL, { key: generateApiKey('production') }),
      // A valid key this process has not seen yet waits for the window like any stranger.
      await api.call('GET', CHANNEL, { key: unseenKey }),
      await api.call('GET', ORGANIZATION, { key: 'wrong-platform-token' }),
    ];
    for (const res of refused) {
      expectProblem(res, 429, 'too_many_failed_authentications');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(55);
    }
    for (const res of [
      await api.call('GET', GUESTS, { key: generateIntegrationToken('sandbox') }),
      await api.call('GET', GUESTS),
    ]) {
      expect(res.status).toBe(429);
      expect(res.json).toMatchObject({ error: 'too_many_failed_authentications' });
    }
    expect(statements).toEqual([]);

    // Known credentials go on to their own check; the platform token needs no lookup.
    expect((await api.call('GET', CHANNEL, { key: channelKey })).status).toBe(200);
    // The pool does report the API's work: the known key's own check takes a connection.
    expect(statements.length).toBeGreaterThan(0);
    expect((await api.call('GET', GUESTS, { key: appToken })).status).toBe(200);
    expect((await api.call('GET', ORGANIZATION, { key: TEST_PLATFORM_TOKEN })).status).toBe(200);

    clock.advance(60_000);
    expectProblem(await api.call('GET', CHANNEL, { key: generateApiKey('sandbox') }), 401, 'invalid_api_key');
    expect((await api.call('GET', CHANNEL, { key: unseenKey })).status).toBe(200);
  });
});
