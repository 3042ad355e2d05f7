import { beforeAll, describe, expect, test } from 'vitest';
import { setChannelStatus, updateChannel } from '../../admin/channels.ts';
import { issueKey, revokeKey } from '../../admin/keys.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { expectProblem } from '../support/problems.ts';
import { devServerClient } from '../support/temporal.ts';

/**
 * A key this API process has seen usable lets a read start beside the key's check (authenticate.ts).
 * Every change made elsewhere (the admin CLI writes the database, not this process) must still decide
 * the very next request: each test reads once to make the key known, changes it, and reads again.
 */
const PROPERTIES = '/api/v1/distribution/properties';
const CHANNEL = '/api/v1/distribution/channel';
let api: TestApi;
let clock: TestClock;
let ctx: ReturnType<typeof adminContext>;

beforeAll(async () => {
  const { orm } = await freshDatabase();
  const temporal = await devServerClient();
  // Windows are whole minutes of this clock; tests that count move it to a minute of their own.
  clock = new TestClock('2026-11-22T10:00:00Z');
  ctx = adminContext(orm, temporal, clock);
  api = await startTestApi({ orm, temporal, clock, env: { AUTH_FAILURE_LIMIT: '1000' } });
});

async function knownKey(options: Parameters<typeof channelWithKey>[1] = {}) {
  const made = await channelWithKey(ctx, options);
  const first = await api.call('GET', `${PROPERTIES}?limit=1`, { key: made.key.key });
  expect(first.status).toBe(200);
  return { ...made, first };
}

describe('a read with a key this process has seen is still decided by the key as it is now', () => {
  test('a key revoked meanwhile is refused on its next read, with the challenge, and spends nothing of its channel', async () => {
    clock.set('2026-11-22T10:01:00Z');
    const { channel, key, first } = await knownKey();
    const other = await issueKey(ctx, { channel: channel.name, scopes: 'read:catalog' });
    await revokeKey(ctx, key.id);
    const refused = await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key });
    expectProblem(refused, 401, 'api_key_revoked');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="distribution", error="invalid_token", error_description="The key was revoked"');
    expect(refused.headers['ratelimit-remaining']).toBeUndefined();
    // The refused read was not counted: the channel's next request is its second in the minute.
    const next = await api.call('GET', `${PROPERTIES}?limit=1`, { key: other.key });
    expect(next.status).toBe(200);
    expect(Number(first.headers['ratelimit-remaining']) - Number(next.headers['ratelimit-remaining'])).toBe(1);
  });

  test('a key revoked meanwhile is refused even when the read itself is refused for its input', async () => {
    const { key } = await knownKey();
    await revokeKey(ctx, key.id);
    expectProblem(await api.call('GET', `${PROPERTIES}?limit=0`, { key: key.key }), 401, 'api_key_revoked');
    expectProblem(await api.call('GET', `${PROPERTIES}?cursor=not-a-cursor`, { key: key.key }), 401, 'api_key_revoked');
  });

  test('a key that expires meanwhile is refused on its next read', async () => {
    const { key } = await knownKey({ expiresAt: new Date(clock.now().getTime() + 3600_000).toISOString() });
    clock.advance(3600_000 + 1000);
    try {
      expectProblem(await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key }), 401, 'api_key_expired');
    } finally {
      clock.set('2026-11-22T10:00:00Z');
    }
  });

  test('a channel suspended meanwhile is refused on its next read with the RateLimit headers, and served again once reinstated', async () => {
    const { channel, key } = await knownKey();
    await setChannelStatus(ctx, channel.name, 'suspended');
    const refused = await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key });
    expectProblem(refused, 403, 'partner_suspended');
    expect(refused.headers['ratelimit-limit']).toBe('600');
    await setChannelStatus(ctx, channel.name, 'active');
    expect((await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key })).status).toBe(200);
  });

  test('a rate limit changed meanwhile applies to the next read', async () => {
    clock.set('2026-11-22T10:02:00Z');
    const { channel, key, first } = await knownKey({ rateLimit: 1000 });
    expect(first.headers['ratelimit-limit']).toBe('1000');
    await updateChannel(ctx, { name: channel.name, rateLimit: 600 });
    const next = await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key });
    expect(next.headers['ratelimit-limit']).toBe('600');
    expect(next.headers['ratelimit-remaining']).toBe('598');
  });

  test('a read past the limit is refused with 429 and nothing of what it read', async () => {
    clock.set('2026-11-22T10:03:00Z');
    const { key } = await knownKey({ rateLimit: 600 });
    for (let i = 1; i < 600; i += 1) expect((await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key })).status).toBe(200);
    const refused = await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key });
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.json.data).toBeUndefined();
    expect(refused.headers['retry-after']).toBe('60');
  });

  test('settings changed meanwhile show on the next GET /channel, which waits for the key as it is now', async () => {
    const { channel, key } = await knownKey();
    expect((await api.call('GET', CHANNEL, { key: key.key })).json.owner_connect.redirect_url).toBe('https://partner.example/connect');
    await updateChannel(ctx, { name: channel.name, redirectUrl: 'https://partner.example/elsewhere', rateLimit: 900 });
    const res = await api.call('GET', CHANNEL, { key: key.key });
    expect(res.json.owner_connect.redirect_url).toBe('https://partner.example/elsewhere');
    expect(res.json.rate_limit).toEqual({ per_minute: 900 });
  });
});
