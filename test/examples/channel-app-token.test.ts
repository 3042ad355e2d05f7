import { randomBytes } from 'node:crypto';
import {
  base64url,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWTHeaderParameters,
} from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { tokenVerifier, TokenRefused } from '../../examples/channel-app/token.ts';

// The reference channel app's token check, held to the contract's list ("Owner-connect token"):
// each rule broken once must be refused, and a token that keeps them all accepted once.

const ISS = 'https://distribution.test';
const CHANNEL = 'partner-one';
const NOW = new Date('2026-11-22T10:00:00Z');
const now = Math.floor(NOW.getTime() / 1000);
let privateKey: CryptoKey;
let otherKey: CryptoKey;
let keys: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('ES256')).privateKey;
  keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });
});

const claims = (over: Record<string, unknown> = {}) => ({
  iss: ISS,
  aud: CHANNEL,
  sub: 'own_01jd0000000000000000000000',
  property_ids: ['prp_01jd0000000000000000000000'],
  iat: now - 10,
  exp: now + 290,
  jti: randomBytes(16).toString('hex'),
  ...over,
});

function sign(
  payload: Record<string, unknown>,
  header: Partial<JWTHeaderParameters> = {},
  key = privateKey,
): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid: 'k1', ...header })
    .sign(key);
}

const verifier = () => tokenVerifier({ keys, issuer: ISS, channel: CHANNEL, now: () => NOW });

describe('the reference app refuses', () => {
  test.each<[string, () => Promise<string>]>([
    [
      'alg none',
      () =>
        Promise.resolve(
          `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'owner-connect+jwt' }))}.${base64url.encode(JSON.stringify(claims()))}.`,
        ),
    ],
    ['typ JWT', () => sign(claims(), { typ: 'JWT' })],
    [
      'typ application/owner-connect+jwt (not exactly the type)',
      () => sign(claims(), { typ: 'application/owner-connect+jwt' }),
    ],
    ['a signature by a key the JWKS does not hold', () => sign(claims(), {}, otherKey)],
    ['an unknown kid', () => sign(claims(), { kid: 'k2' })],
    ['another issuer', () => sign(claims({ iss: 'https://evil.example' }))],
    ['another channel as audience', () => sign(claims({ aud: 'partner-two' }))],
    ['exp passed by more than 60 s', () => sign(claims({ iat: now - 400, exp: now - 61 }))],
    ['iat more than 60 s ahead', () => sign(claims({ iat: now + 61, exp: now + 300 }))],
    ['exp more than 300 s after iat', () => sign(claims({ iat: now - 10, exp: now + 291 }))],
    ['no jti', () => sign({ ...claims(), jti: undefined })],
    ['a malformed token', () => Promise.resolve('not.a.token')],
  ])('%s', async (_name, make) => {
    await expect(verifier()(await make())).rejects.toBeInstanceOf(TokenRefused);
  });

  test('a token seen before (jti replay), while accepting it the first time', async () => {
    const verify = verifier();
    const token = await sign(claims());
    await expect(verify(token)).resolves.toMatchObject({ aud: CHANNEL, iss: ISS });
    await expect(verify(token)).rejects.toThrow('jti already used');
  });
});

test('the reference app accepts a token within 60 s of clock skew on both ends', async () => {
  await expect(verifier()(await sign(claims({ iat: now + 59, exp: now + 300 })))).resolves.toBeDefined();
  await expect(verifier()(await sign(claims({ iat: now - 350, exp: now - 59 })))).resolves.toBeDefined();
});
