import type { MikroORM } from '@mikro-orm/postgresql';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { allKeys } from '../../db/owner-connect-keys.ts';
import type { AdminContext } from '../../admin/context.ts';
import { advanceKeyRotation, rotateKeyEarly } from '../../services/owner-connect/key-rotation.ts';
import { signingKeyForToken, verificationKey } from '../../services/owner-connect/signing-keys.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';

// GET /owner-connect/keys against a real database; the key set is changed through the services
// at instants the test chooses (the workflow that calls them is tested in test/workflows).

const PATH = '/api/v1/distribution/owner-connect/keys';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms);

let orm: MikroORM;
let api: TestApi;
let ctx: AdminContext;
const clock = new TestClock(new Date(T0));

beforeAll(async () => {
  ({ api, ctx, orm } = await apiTestBed({ clock }));
});

async function served(): Promise<JSONWebKeySet> {
  const res = await api.call('GET', PATH);
  expect(res.status).toBe(200);
  return res.json as JSONWebKeySet;
}

const kidsServed = async () => (await served()).keys.map((k) => k.kid);

/** A token as the owner-connect flow mints it, signed by the key the service chooses at `when`. */
async function token(when: Date): Promise<string> {
  const { kid, privateKey } = await signingKeyForToken(ctx, when);
  const iat = Math.floor(when.getTime() / 1000);
  return new SignJWT({ property_ids: [] })
    .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid })
    .setIssuer('https://distribution.test')
    .setAudience('demo-travel')
    .setSubject('own_test')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 300)
    .sign(privateKey);
}

describe('GET /owner-connect/keys', () => {
  test('before any key exists: an empty set, no key needed', async () => {
    clock.set(at(0));
    const res = await api.call('GET', PATH);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ keys: [] });
    expectMatchesDescription('GET', PATH, res);
  });

  test('the first token bootstraps a key that signs at once; the set serves its public members only, with Cache-Control, ETag and Request-Id', async () => {
    clock.set(at(0));
    const jwt = await token(at(0));
    const res = await api.call('GET', PATH);
    expect(res.status).toBe(200);
    expectMatchesDescription('GET', PATH, res);
    expect(res.headers['cache-control']).toBe('public, max-age=900');
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.etag).toMatch(/^W\//);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    const { keys } = res.json as JSONWebKeySet;
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(keys[0]).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: decodeProtectedHeader(jwt).kid,
    });
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(res.text).not.toContain(`"${member}"`);

    const [row] = await allKeys(orm.em.fork());
    expect(row!.signedAtOnce).toBe('bootstrap');
    expect(row!.privateJwk).toMatch(/^v2\.0\./);
    expect(row!.privateJwk).not.toContain('"d"');
  });

  test('a token signed with the active key verifies with an independent local JWKS over the served set, and with verificationKey', async () => {
    const jwt = await token(at(HOUR));
    const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(await served()), {
      algorithms: ['ES256'],
      typ: 'owner-connect+jwt',
      issuer: 'https://distribution.test',
      audience: 'demo-travel',
      currentDate: at(HOUR),
    });
    expect(payload.sub).toBe('own_test');
    const key = await verificationKey(ctx, protectedHeader.kid!, at(HOUR));
    expect(key).toBeDefined();
    expect((await jwtVerify(jwt, key!, { currentDate: at(HOUR) })).payload.sub).toBe('own_test');
    expect(await verificationKey(ctx, 'no-such-kid', at(HOUR))).toBeUndefined();
  });

  test('a channel that sends its key, or any Authorization, is answered the same set', async () => {
    const anonymous = await api.call('GET', PATH);
    const { key } = await channelWithKey(ctx);
    const withKey = await api.call('GET', PATH, { key: key.key });
    const withJunk = await api.call('GET', PATH, { key: 'svc_test_not-a-key' });
    for (const res of [withKey, withJunk]) {
      expect(res.status).toBe(200);
      expect(res.json).toEqual(anonymous.json);
    }
  });

  test('If-None-Match with the ETag answers 304 while the set is unchanged', async () => {
    const first = await api.call('GET', PATH);
    const again = await api.call('GET', PATH, { headers: { 'if-none-match': first.headers.etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers['cache-control']).toBe('public, max-age=900');
    expectMatchesDescription('GET', PATH, again);
  });

  test('a rotation: the next key is served from its publication, signs 24 h later, and the retired key leaves the set 24 h after it stopped', async () => {
    const [first] = await kidsServed();
    const period = 30 * DAY;
    // Nothing is due before the period's last day.
    expect((await advanceKeyRotation(ctx, at(2 * HOUR), 30)).applied).toEqual([]);
    const published = await advanceKeyRotation(ctx, at(period - DAY), 30);
    expect(published.applied).toHaveLength(1);
    expect(published.applied[0]).toMatch(/^create /);
    const next = published.applied[0]!.slice('create '.length);
    expect(published.nextAt).toEqual(at(period));

    clock.set(at(period - DAY));
    expect(await kidsServed()).toEqual([first, next]);
    expect(decodeProtectedHeader(await token(at(period - 1))).kid).toBe(first);

    expect((await advanceKeyRotation(ctx, at(period), 30)).applied).toEqual([`switch ${next}`]);
    clock.set(at(period + DAY - 1));
    expect(await kidsServed()).toEqual([first, next]);
    expect(decodeProtectedHeader(await token(at(period))).kid).toBe(next);
    expect(await verificationKey(ctx, first!, at(period + DAY - 1))).toBeDefined();

    clock.set(at(period + DAY));
    expect(await kidsServed()).toEqual([next]);
    expect(await verificationKey(ctx, first!, at(period + DAY))).toBeUndefined();
    expect((await advanceKeyRotation(ctx, at(period + DAY), 30)).applied).toEqual([`destroy ${first}`]);
    const rows = await allKeys(orm.em.fork());
    expect(rows.find((r) => r.kid === first)).toMatchObject({ privateJwk: null });
  });

  test('a compromised key leaves the set at once, its tokens stop verifying, and a new key signs at once', async () => {
    const now = 31 * DAY + HOUR;
    clock.set(at(now));
    const before = await token(at(now));
    const compromised = decodeProtectedHeader(before).kid!;
    const rotation = await rotateKeyEarly(ctx, { at: at(now), compromised: true });
    expect(rotation).toMatchObject({ withdrawn: compromised, created: true, signsFrom: at(now).toISOString() });
    const set = await served();
    expect(set.keys.map((k) => k.kid)).toEqual([rotation.kid]);
    await expect(jwtVerify(before, createLocalJWKSet(set), { currentDate: at(now) })).rejects.toThrow();
    expect(await verificationKey(ctx, compromised, at(now))).toBeUndefined();
    expect(decodeProtectedHeader(await token(at(now))).kid).toBe(rotation.kid);
    const row = (await allKeys(orm.em.fork())).find((r) => r.kid === compromised);
    expect(row).toMatchObject({ privateJwk: null });
    expect(row!.compromisedAt).not.toBeNull();
  });
});
