import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import {
  base64url,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportSPKI,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { OwnerConnectTokenSchema } from '../../db/entities/index.ts';
import { ProblemError } from '../../domain/problems.ts';
import { startOwnerConnect } from '../../services/owner-connect/hand-off.ts';
import { rotateKeyEarly } from '../../services/owner-connect/key-rotation.ts';
import { signingKeyForToken } from '../../services/owner-connect/signing-keys.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { SA_CHANNEL, SA_STATE } from '../../workflows/search-attributes.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, type TestApi } from '../support/api.ts';
import { platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';
import { createChannel, setChannelStatus } from '../../admin/channels.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let clock: TestClock;
let ctx: AdminContext;
let orm: MikroORM;
let temporal: Client;

/** Channel A and B both see owner `oc-own-1` (one property); only A sees `oc-own-2`. */
const a = { name: '', key: '' };
const b = { name: '', key: '' };

beforeAll(async () => {
  ({ api, clock, ctx, orm, temporal } = await apiTestBed({
    clock: new TestClock(),
    taskQueue: 'api-owner-connect',
    worker: true,
  }));

  for (const channel of [a, b]) {
    const made = await channelWithKey(ctx, { scopes: ['read:catalog', 'write:listings'] });
    channel.name = made.channel.name;
    channel.key = made.key.key;
  }
  const host = platform(api);
  await host.organization('oc-org');
  for (const n of [1, 2]) {
    await host.owner(`oc-own-${n}`, { organization: 'oc-org', display_name: `Owner ${n}` });
    await host.location(`oc-loc-${n}`, { organization: 'oc-org', owner: `oc-own-${n}` });
    await host.property(`oc-prp-${n}`, { location: `oc-loc-${n}`, owner: `oc-own-${n}` });
  }
  await host.distribute('oc-prp-1', [a.name, b.name]);
  await host.distribute('oc-prp-2', [a.name]);
}, 120_000);

const get = async (key: string, path: string) => {
  const res = await api.call('GET', `${BASE}${path}`, { key });
  expect(res.status, res.text).toBe(200);
  return res;
};

/** The channel's view of an owner, by the name the platform gave it. */
async function ownerSeenBy(key: string, displayName: string) {
  const owners = (await get(key, '/owners?limit=500')).json.data as {
    id: string;
    display_name: string;
    version: number;
    connected_at: string | null;
  }[];
  const owner = owners.find((o) => o.display_name === displayName);
  expect(owner, `${displayName} is in the channel's view`).toBeDefined();
  return owner!;
}

async function events(key: string) {
  return (await get(key, '/events?limit=500')).json.data as {
    type: string;
    data: { object: string; id: string; version: number };
  }[];
}

/** Everything a refused call must leave as it was: both views of the owners and both event logs. */
async function snapshot() {
  return {
    a: (await get(a.key, '/owners?limit=500')).json.data,
    b: (await get(b.key, '/owners?limit=500')).json.data,
    aEvents: await events(a.key),
    bEvents: await events(b.key),
  };
}

const mint = (ownerRef: string, body: Record<string, unknown>, accept = 'application/json') =>
  api.call('POST', `/internal/v1/owners/${ownerRef}/owner-connect`, {
    key: TEST_PLATFORM_TOKEN,
    body,
    headers: { accept },
  });

async function mintToken(ownerRef: string, channel: string, locale?: string): Promise<string> {
  const res = await mint(ownerRef, { channel, ...(locale ? { locale } : {}) });
  expect(res.status, res.text).toBe(200);
  return res.json.token as string;
}

const confirm = async (key: string, ownerId: string, token: string) => {
  const res = await api.call('PUT', `${BASE}/owners/${ownerId}/connection`, { key, body: { token } });
  if (res.status < 400) expectMatchesDescription('PUT', `${BASE}/owners/${ownerId}/connection`, res);
  return res;
};
const disconnect = (key: string, ownerId: string) =>
  api.call('DELETE', `${BASE}/owners/${ownerId}/connection`, { key });

/** A token with the service's real signing key (or none), with the given claims and header. */
async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, privateKey } = await signingKeyForToken(ctx, clock.now());
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid, ...header })
    .sign(privateKey);
}

async function publishedKeys(): Promise<JWK[]> {
  const res = await api.call('GET', `${BASE}/owner-connect/keys`, { key: a.key });
  expect(res.status, res.text).toBe(200);
  return res.json.keys as JWK[];
}

describe('minting (POST /internal/v1/owners/{ref}/owner-connect)', () => {
  test('answers the parts as JSON: an ES256 token whose claims name this service, the channel, and the owner and properties as that channel sees them', async () => {
    const res = await mint('oc-own-1', { channel: a.name, locale: 'ro-RO' });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['expires_at', 'redirect_url', 'token']);
    expect(res.json.redirect_url).toBe('https://partner.example/connect');
    const header = decodeProtectedHeader(res.json.token);
    expect(header).toEqual({ alg: 'ES256', typ: 'owner-connect+jwt', kid: expect.any(String) });
    const claims = decodeJwt(res.json.token);
    const ownerA = await ownerSeenBy(a.key, 'Owner 1');
    const properties = ((await get(a.key, '/properties?limit=500')).json.data as { id: string; owner_id: string }[])
      .filter((p) => p.owner_id === ownerA.id)
      .map((p) => p.id);
    expect(claims).toEqual({
      iss: api.config.publicOrigin,
      aud: a.name,
      sub: ownerA.id,
      property_ids: properties,
      iat: Math.floor(clock.now().getTime() / 1000),
      exp: Math.floor(clock.now().getTime() / 1000) + 300,
      jti: expect.stringMatching(/^[0-9a-f]{32}$/),
      locale: 'ro-RO',
    });
    expect(properties).toHaveLength(1);
    expect(res.json.expires_at).toBe(new Date(claims.exp! * 1000).toISOString().replace('.000Z', 'Z'));

    // The other channel's token names the owner by that channel's own id.
    const forB = decodeJwt(await mintToken('oc-own-1', b.name));
    expect(forB.sub).toBe((await ownerSeenBy(b.key, 'Owner 1')).id);
    expect(forB.sub).not.toBe(claims.sub);
    expect(forB).not.toHaveProperty('locale');

    // One searchable workflow per token, waiting for its confirmation.
    const description = await temporal.workflow.getHandle(workflowIds.ownerConnect(claims.jti!)).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.typedSearchAttributes.get(SA_CHANNEL)).toBe(a.name);
    expect(description.typedSearchAttributes.get(SA_STATE)).toBe('waiting');
  });

  test('answers the hand-off page otherwise: a form POSTing the token to the redirect URL, submitted by the one script its policy allows', async () => {
    const res = await mint('oc-own-1', { channel: a.name, locale: 'ro' }, 'text/html,*/*');
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const token = /name="token" value="([^"]+)"/.exec(res.text)?.[1];
    expect(decodeJwt(token!).aud).toBe(a.name);
    expect(res.text).toContain('<form id="hand-off" method="post" action="https://partner.example/connect">');
    // It names the channel the host is sent to.
    expect(res.text).toContain(`<button type="submit">Continuați către ${a.name}</button>`);
    const nonce = /<script nonce="([^"]+)">/.exec(res.text)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
    expect(res.headers['content-security-policy']).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action https://partner.example`,
    );
    expect(res.text).not.toMatch(/<script(?! nonce)/);
  });

  test('refuses a suspended channel with 409 channel_suspended, writing nothing, and hands off again once it is reinstated', async () => {
    const tokens = () => orm.em.fork().count(OwnerConnectTokenSchema, {});
    const before = await tokens();
    await setChannelStatus(ctx, a.name, 'suspended');
    try {
      expectProblem(await mint('oc-own-1', { channel: a.name }), 409, 'channel_suspended');
      expect(await tokens()).toBe(before);
    } finally {
      await setChannelStatus(ctx, a.name, 'active');
    }
    expect((await mint('oc-own-1', { channel: a.name })).status).toBe(200);
  });

  test('refuses an unknown owner, a channel without a redirect URL and an owner the channel does not see, writing nothing', async () => {
    const tokens = () => orm.em.fork().count(OwnerConnectTokenSchema, {});
    const before = await tokens();
    expectProblem(await mint('oc-nobody', { channel: a.name }), 404, 'not_found');
    expectProblem(await mint('oc-own-1', { channel: 'oc-no-such-channel' }), 404, 'not_found');
    const bare = `oc-bare-${Date.now().toString(36)}`;
    await createChannel(ctx, { name: bare, rateLimit: 600 });
    expectProblem(await mint('oc-own-1', { channel: bare }), 409, 'owner_connect_not_configured');
    expectProblem(await mint('oc-own-2', { channel: b.name }), 409, 'owner_not_distributed');
    expectProblem(await mint('oc-own-1', { channel: a.name, locale: 'not a locale' }), 400, 'invalid_parameters', [
      'errors',
    ]);
    // The host pages' call names the organization they act for: another organization's owner is not found.
    const refused = await startOwnerConnect(ctx, {
      ownerRef: 'oc-own-1',
      channel: a.name,
      organizationRef: 'oc-other-org',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).code).toBe('not_found');
    expect(await tokens()).toBe(before);
    expect(
      decodeJwt(
        (await startOwnerConnect(ctx, { ownerRef: 'oc-own-1', channel: a.name, organizationRef: 'oc-org' })).token,
      ).aud,
    ).toBe(a.name);
  });
});

describe('confirmation (PUT /owners/{owner_id}/connection)', () => {
  test('connects the owner in the confirming channel only, announces it, and answers the same connection to the same token', async () => {
    const token = await mintToken('oc-own-1', a.name);
    // A channel verifies the token with the published keys alone.
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: await publishedKeys() }), {
      algorithms: ['ES256'],
      typ: 'owner-connect+jwt',
      issuer: api.config.publicOrigin,
      audience: a.name,
      currentDate: clock.now(),
    });
    const before = {
      a: await ownerSeenBy(a.key, 'Owner 1'),
      b: await ownerSeenBy(b.key, 'Owner 1'),
      bEvents: await events(b.key),
    };
    expect(before.a.connected_at).toBeNull();
    expect(payload.sub).toBe(before.a.id);

    const res = await confirm(a.key, before.a.id, token);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      owner_id: before.a.id,
      connected_at: expect.stringMatching(/Z$/),
      property_ids: payload.property_ids,
      token_id: payload.jti,
    });

    const after = await ownerSeenBy(a.key, 'Owner 1');
    expect(after.connected_at).toBe(res.json.connected_at);
    expect(after.version).toBeGreaterThan(before.a.version);
    expect((await events(a.key)).at(-1)).toEqual(
      expect.objectContaining({
        type: 'owner.updated',
        data: { object: 'owner', id: after.id, version: after.version },
      }),
    );
    // The other channel's view and log are untouched.
    expect(await ownerSeenBy(b.key, 'Owner 1')).toEqual(before.b);
    expect(await events(b.key)).toEqual(before.bEvents);

    const quiet = await snapshot();
    const again = await confirm(a.key, before.a.id, token);
    expect(again.status, again.text).toBe(200);
    expect(again.json).toEqual(res.json);
    expect(await snapshot()).toEqual(quiet);

    const state = await temporal.workflow.getHandle(workflowIds.ownerConnect(payload.jti!)).describe();
    expect(state.typedSearchAttributes.get(SA_STATE)).toBe('confirmed');
  });

  test('DELETE disconnects (null, announced once), answers 204 whatever the id, and the removed token is never accepted again', async () => {
    const owner = await ownerSeenBy(a.key, 'Owner 2');
    const token = await mintToken('oc-own-2', a.name);
    expect((await confirm(a.key, owner.id, token)).status).toBe(200);
    const connected = await ownerSeenBy(a.key, 'Owner 2');
    expect(connected.connected_at).not.toBeNull();

    expect((await disconnect(a.key, owner.id)).status).toBe(204);
    const removed = await ownerSeenBy(a.key, 'Owner 2');
    expect(removed.connected_at).toBeNull();
    expect(removed.version).toBeGreaterThan(connected.version);
    expect((await events(a.key)).at(-1)).toEqual(
      expect.objectContaining({
        type: 'owner.updated',
        data: { object: 'owner', id: owner.id, version: removed.version },
      }),
    );

    const quiet = await snapshot();
    for (const id of [owner.id, 'own_00000000000000000000000000', 'not-an-id']) {
      const res = await disconnect(a.key, id);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
    // B does not see owner 2: its DELETE is the same 204.
    expect((await disconnect(b.key, owner.id)).status).toBe(204);
    expectProblem(await confirm(a.key, owner.id, token), 409, 'owner_connect_token_used');
    expect(await snapshot()).toEqual(quiet);
  });

  test('a later token replaces the connection; the earlier token is then refused', async () => {
    const owner = await ownerSeenBy(b.key, 'Owner 1');
    const first = await mintToken('oc-own-1', b.name);
    const second = await mintToken('oc-own-1', b.name);
    expect((await confirm(b.key, owner.id, first)).status).toBe(200);
    clock.advance(5_000);
    const replaced = await confirm(b.key, owner.id, second);
    expect(replaced.status).toBe(200);
    expect((await ownerSeenBy(b.key, 'Owner 1')).connected_at).toBe(replaced.json.connected_at);
    const quiet = await snapshot();
    expectProblem(await confirm(b.key, owner.id, first), 409, 'owner_connect_token_used');
    expect(await snapshot()).toEqual(quiet);
  });

  test('a token used for another owner or by another channel is refused, writing nothing', async () => {
    const one = await ownerSeenBy(a.key, 'Owner 1');
    const two = await ownerSeenBy(a.key, 'Owner 2');
    const token = await mintToken('oc-own-2', a.name);
    const quiet = await snapshot();
    expectProblem(await confirm(a.key, one.id, token), 400, 'invalid_owner_connect_token');
    // Channel B, with its own key, for the owner as it sees it: aud is not B.
    expectProblem(
      await confirm(b.key, (await ownerSeenBy(b.key, 'Owner 1')).id, token),
      400,
      'invalid_owner_connect_token',
    );
    expectProblem(await confirm(b.key, two.id, token), 400, 'invalid_owner_connect_token');
    expect(await snapshot()).toEqual(quiet);
  });

  test('refuses every forged shape before trusting a claim, writing nothing', async () => {
    const owner = await ownerSeenBy(a.key, 'Owner 2');
    const other = await ownerSeenBy(a.key, 'Owner 1');
    const genuine = await mintToken('oc-own-2', a.name);
    const claims = decodeJwt(genuine);
    const [head, body, signature] = genuine.split('.') as [string, string, string];
    const now = Math.floor(clock.now().getTime() / 1000);
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
    const jwk = (await publishedKeys())[0]!;
    const spki = await exportSPKI((await importJWK(jwk, 'ES256', { extractable: true })) as CryptoKey);

    // Each shape is the genuine token's claims (its jti included) with one defect, so only the
    // check named by the detail stands between it and a connection.
    const forged: Record<string, [string, string]> = {
      'alg none': [`${encode({ alg: 'none', typ: 'owner-connect+jwt' })}.${body}.`, 'alg must be ES256'],
      'alg none with the original signature': [
        `${encode({ ...decodeProtectedHeader(genuine), alg: 'none' })}.${body}.${signature}`,
        'alg must be ES256',
      ],
      'HS256 keyed with the public key': [
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'owner-connect+jwt', kid: jwk.kid! })
          .sign(new TextEncoder().encode(spki)),
        'alg must be ES256',
      ],
      'HS256 keyed with the JWK': [
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'owner-connect+jwt', kid: jwk.kid! })
          .sign(new TextEncoder().encode(JSON.stringify(jwk))),
        'alg must be ES256',
      ],
      'tampered claims under the original signature': [
        `${head}.${encode({ ...claims, property_ids: [...(claims.property_ids as string[]), 'prp_extra'] })}.${signature}`,
        'the signature does not verify',
      ],
      'unknown kid': [await signed(claims, { kid: 'no-such-key' }), 'kid names no published key'],
      'wrong typ': [await signed(claims, { typ: 'JWT' }), 'typ must be owner-connect+jwt'],
      'no typ': [await signed(claims, { typ: undefined }), 'typ must be owner-connect+jwt'],
      'aud of another channel': [await signed({ ...claims, aud: b.name }), 'aud is not the calling channel'],
      'sub of another owner': [await signed({ ...claims, sub: other.id }), 'sub is not the owner in the path'],
      'iss of another deployment': [
        await signed({ ...claims, iss: 'https://elsewhere.example' }),
        'iss is not this service',
      ],
      'iat in the future': [await signed({ ...claims, iat: now + 120, exp: now + 420 }), 'iat is in the future'],
      'iat one second past the 60 seconds of skew': [
        await signed({ ...claims, iat: now + 61, exp: now + 361 }),
        'iat is in the future',
      ],
      'jti of fewer than 128 bits': [
        await signed({ ...claims, jti: (claims.jti as string).slice(0, 16) }),
        'jti is not 128 bits in hex',
      ],
      'exp too far after iat': [await signed({ ...claims, exp: now + 3600 }), 'exp is not within 300 seconds of iat'],
      'not a JWS': ['definitely-not-a-token', 'not a JWS in compact serialization'],
    };
    const quiet = await snapshot();
    for (const [shape, [token, detail]] of Object.entries(forged)) {
      const res = await confirm(a.key, owner.id, token);
      expect({ code: res.json?.code, detail: res.json?.detail }, shape).toEqual({
        code: 'invalid_owner_connect_token',
        detail,
      });
      expectProblem(res, 400, 'invalid_owner_connect_token');
    }
    expect(await snapshot()).toEqual(quiet);
    // The genuine token was never used by the refusals.
    expect((await confirm(a.key, owner.id, genuine)).status).toBe(200);
    expect((await disconnect(a.key, owner.id)).status).toBe(204);
  });

  test('an unconfirmed token is refused 3600 seconds after iat, writing nothing', async () => {
    const owner = await ownerSeenBy(a.key, 'Owner 2');
    const token = await mintToken('oc-own-2', a.name);
    const quiet = await snapshot();
    clock.advance(3601_000);
    try {
      expectProblem(await confirm(a.key, owner.id, token), 410, 'owner_connect_token_expired');
      expect(await snapshot()).toEqual(quiet);
    } finally {
      clock.advance(-3601_000);
    }
  });

  test('confirming takes read:catalog; removing takes write:listings, which a read-only key lacks', async () => {
    const reader = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const removal = await api.call('DELETE', `${BASE}/owners/own_x/connection`, { key: reader.key.key });
    expectProblem(removal, 403, 'insufficient_scope', ['required_scopes']);
    expect(removal.json.required_scopes).toEqual(['write:listings']);
    // Past the scope check: the token is what is refused.
    expectProblem(
      await api.call('PUT', `${BASE}/owners/own_x/connection`, { key: reader.key.key, body: { token: 'not-a-token' } }),
      400,
      'invalid_owner_connect_token',
    );
    const writer = await channelWithKey(ctx, { scopes: ['write:listings'] });
    expect((await api.call('DELETE', `${BASE}/owners/own_x/connection`, { key: writer.key.key })).status).toBe(204);
    expectProblem(
      await api.call('PUT', `${BASE}/owners/own_x/connection`, { key: writer.key.key, body: { token: 'not-a-token' } }),
      403,
      'insufficient_scope',
      ['required_scopes'],
    );
  });
});

describe('an emergency rotation', () => {
  test('a hand-off later in the second of the rotation signs with the new key, which the set already serves', async () => {
    const second = Math.floor(clock.now().getTime() / 1000) * 1000 + 10_000;
    clock.set(new Date(second));
    const before = decodeProtectedHeader(await mintToken('oc-own-1', a.name)).kid;
    clock.set(new Date(second + 300));
    const rotation = await rotateKeyEarly(ctx, { at: clock.now(), compromised: true });
    clock.set(new Date(second + 700));
    const token = await mintToken('oc-own-1', a.name);
    expect(rotation.withdrawn).toBe(before);
    expect(decodeProtectedHeader(token).kid).toBe(rotation.kid);
    expect(decodeJwt(token).iat).toBe(second / 1000);
    expect((await publishedKeys()).map((key) => key.kid)).toContain(rotation.kid);
    await jwtVerify(token, createLocalJWKSet({ keys: await publishedKeys() }), { currentDate: clock.now() });
  });
});
