import { beforeAll, describe, expect, test } from 'vitest';
import { setChannelStatus, updateChannel } from '../../admin/channels.ts';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey, revokeKey } from '../../admin/keys.ts';
import { generateApiKey } from '../../domain/api-keys.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey, otherLastCharacter } from '../support/fixtures.ts';
import { expectProblem } from '../support/problems.ts';

const CHANNEL = '/api/v1/distribution/channel';
const PROPERTIES = '/api/v1/distribution/properties';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;

beforeAll(async () => {
  ({ api, clock, ctx } = await apiTestBed({ clock: new TestClock() }));
});

describe('GET /channel', () => {
  test('answers the channel record for a valid key, with Request-Id and rate-limit headers', async () => {
    const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'read:ari'] });
    const res = await api.call('GET', CHANNEL, { key: key.key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      channel: channel.name,
      environment: 'sandbox',
      key: {
        last4: key.key.slice(-4),
        created: expect.stringMatching(/Z$/),
        expires_at: null,
        scopes: ['read:catalog', 'read:ari'],
      },
      rate_limit: { per_minute: 600 },
      owner_connect: { redirect_url: 'https://partner.example/connect' },
      technical_contact: { email: null },
    });
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['ratelimit-limit']).toBe('600');
  });
});

describe('the refusal table of the Authentication section', () => {
  test('no bearer header: 401 missing_api_key with a bare challenge', async () => {
    const res = await api.call('GET', CHANNEL);
    expectProblem(res, 401, 'missing_api_key');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="distribution"');
  });

  test('malformed and unknown keys are answered identically', async () => {
    const malformed = await api.call('GET', CHANNEL, { key: 'svc_test_not-a-key' });
    const badChecksum = await api.call('GET', CHANNEL, { key: otherLastCharacter(generateApiKey('sandbox')) });
    const unknown = await api.call('GET', CHANNEL, { key: generateApiKey('sandbox') });
    for (const res of [malformed, badChecksum, unknown]) {
      expectProblem(res, 401, 'invalid_api_key');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="distribution", error="invalid_token"/);
    }
    const strip = (body: Record<string, unknown>) => ({ ...body, instance: undefined, request_id: undefined });
    expect(strip(malformed.json)).toEqual(strip(unknown.json));
    expect(strip(badChecksum.json)).toEqual(strip(unknown.json));
    expect(malformed.headers['www-authenticate']).toBe(unknown.headers['www-authenticate']);
  });

  test('a production key on the sandbox: 401 api_key_wrong_environment, before any lookup', async () => {
    const res = await api.call('GET', CHANNEL, { key: generateApiKey('production') });
    expectProblem(res, 401, 'api_key_wrong_environment');
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  test('an expired key: 401 api_key_expired', async () => {
    const { key } = await channelWithKey(ctx, { expiresAt: new Date(clock.now().getTime() + 3600_000).toISOString() });
    expect((await api.call('GET', CHANNEL, { key: key.key })).status).toBe(200);
    clock.advance(3600_000 + 1000);
    try {
      const res = await api.call('GET', CHANNEL, { key: key.key });
      expectProblem(res, 401, 'api_key_expired');
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    } finally {
      clock.set(new Date());
    }
  });

  test("a revoked key: 401 api_key_revoked; the channel's other key still works", async () => {
    const { channel, key } = await channelWithKey(ctx);
    const second = await issueKey(ctx, { channel: channel.name, scopes: 'read:catalog' });
    await revokeKey(ctx, key.id);
    expectProblem(await api.call('GET', CHANNEL, { key: key.key }), 401, 'api_key_revoked');
    expect((await api.call('GET', CHANNEL, { key: second.key })).status).toBe(200);
  });

  test('a suspended channel: 403 partner_suspended, and back after reinstatement', async () => {
    const { channel, key } = await channelWithKey(ctx);
    await setChannelStatus(ctx, channel.name, 'suspended');
    expectProblem(await api.call('GET', CHANNEL, { key: key.key }), 403, 'partner_suspended');
    await setChannelStatus(ctx, channel.name, 'active');
    expect((await api.call('GET', CHANNEL, { key: key.key })).status).toBe(200);
  });

  test("partner_suspended counts against the channel's rate limit and carries the RateLimit headers", async () => {
    const { channel, key } = await channelWithKey(ctx);
    await setChannelStatus(ctx, channel.name, 'suspended');
    const first = await api.call('GET', CHANNEL, { key: key.key });
    const second = await api.call('GET', CHANNEL, { key: key.key });
    expectProblem(second, 403, 'partner_suspended');
    expect(first.headers['ratelimit-limit']).toBe('600');
    expect(Number(first.headers['ratelimit-remaining']) - Number(second.headers['ratelimit-remaining'])).toBe(1);
    for (const header of ['ratelimit-reset', 'ratelimit-policy', 'ratelimit'])
      expect(second.headers[header]).toEqual(expect.any(String));
    await setChannelStatus(ctx, channel.name, 'active');
    expect((await api.call('GET', CHANNEL, { key: key.key })).headers['ratelimit-remaining']).toBe(
      String(Number(second.headers['ratelimit-remaining']) - 1),
    );
  });

  test('a key without the scope: 403 insufficient_scope naming the missing scopes', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:ari'] });
    const res = await api.call('GET', '/api/v1/distribution/locations', { key: key.key });
    expectProblem(res, 403, 'insufficient_scope', ['required_scopes']);
    expect(res.json.required_scopes).toEqual(['read:catalog']);
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
  });

  test('the Bearer scheme is case-insensitive and other schemes are a missing key', async () => {
    const { key } = await channelWithKey(ctx);
    expect((await api.call('GET', CHANNEL, { headers: { authorization: `bearer ${key.key}` } })).status).toBe(200);
    expectProblem(
      await api.call('GET', CHANNEL, { headers: { authorization: `Basic ${key.key}` } }),
      401,
      'missing_api_key',
    );
  });
});

describe('repeated failed authentication from one address', () => {
  test('past the limit answers 429 too_many_failed_authentications with Retry-After, while a valid key the process already accepted still passes', async () => {
    const { api: strict, ctx: strictCtx } = await apiTestBed({ clock, env: { AUTH_FAILURE_LIMIT: '3' } });
    const { key } = await channelWithKey(strictCtx);
    expect((await strict.call('GET', CHANNEL, { key: key.key })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await strict.call('GET', CHANNEL, { key: generateApiKey('sandbox') })).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const blocked = await strict.call('GET', CHANNEL);
    expectProblem(blocked, 429, 'too_many_failed_authentications');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await strict.call('GET', CHANNEL, { key: key.key })).status).toBe(200);
  });
});

/**
 * A key this API process has seen usable lets a read start beside the key's check (authenticate.ts).
 * Every change made elsewhere (the admin functions write the database, not this process) must still
 * decide the very next request: each test reads once to make the key known, changes it, and reads
 * again. Tests that count set the clock to a minute of their own.
 */
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
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="distribution", error="invalid_token", error_description="The key was revoked"',
    );
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
      clock.set(new Date());
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
    for (let i = 1; i < 600; i += 1)
      expect((await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key })).status).toBe(200);
    const refused = await api.call('GET', `${PROPERTIES}?limit=1`, { key: key.key });
    expectProblem(refused, 429, 'rate_limited');
    expect(refused.json.data).toBeUndefined();
    expect(refused.headers['retry-after']).toBe('60');
  });

  test('settings changed meanwhile show on the next GET /channel, which waits for the key as it is now', async () => {
    const { channel, key } = await knownKey();
    expect((await api.call('GET', CHANNEL, { key: key.key })).json.owner_connect.redirect_url).toBe(
      'https://partner.example/connect',
    );
    await updateChannel(ctx, { name: channel.name, redirectUrl: 'https://partner.example/elsewhere', rateLimit: 900 });
    const res = await api.call('GET', CHANNEL, { key: key.key });
    expect(res.json.owner_connect.redirect_url).toBe('https://partner.example/elsewhere');
    expect(res.json.rate_limit).toEqual({ per_minute: 900 });
  });
});
