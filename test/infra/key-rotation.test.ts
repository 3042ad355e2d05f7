import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { decodeCursor, encodeCursor } from '../../domain/catalogue/cursor.ts';
import { displacePoint } from '../../domain/catalogue/geo.ts';
import { webhookSecretBox, webhookSecretContext } from '../../infra/secret-box.ts';
import { parseKeyRing } from '../../infra/secrets.ts';

const OLD = 'old-server-secret-0123456789abcdef-0123';
const NEW = 'new-server-secret-0123456789abcdef-4567';
const CONTEXT = webhookSecretContext('whk_01jd0000000000000000000000');

const before = parseKeyRing({ serverSecret: OLD, serverSecrets: undefined, serverGeoSecret: undefined });
/** A new key added: it seals and tags; the old one still opens and verifies. */
const during = parseKeyRing({ serverSecret: OLD, serverSecrets: `1:${NEW}`, serverGeoSecret: undefined });
/** The old key retired; approximate points keep the secret they were keyed with. */
const after = parseKeyRing({ serverSecret: undefined, serverSecrets: `1:${NEW}`, serverGeoSecret: OLD });

/** A value sealed the way the service sealed before key ids: `v1.<nonce>.<ciphertext+tag>` under SERVER_SECRET. */
function legacySeal(secret: string, plaintext: string, context: string, tagBytes = 16): string {
  const key = Buffer.from(
    hkdfSync('sha256', new TextEncoder().encode(secret), Buffer.alloc(0), 'distribution/webhook-secrets', 32),
  );
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([
    cipher.update(plaintext, 'utf8'),
    cipher.final(),
    cipher.getAuthTag().subarray(0, tagBytes),
  ]);
  return `v1.${nonce.toString('base64url')}.${body.toString('base64url')}`;
}

describe('rotating the server secret', () => {
  test('a secret sealed before key ids, and one sealed under the old key, open after a new key joins; new seals name the new key', () => {
    const legacy = legacySeal(OLD, 'whsec_legacy', CONTEXT);
    const underOld = webhookSecretBox(before).seal('whsec_old', CONTEXT);
    expect(underOld.startsWith('v2.0.')).toBe(true);
    const box = webhookSecretBox(during);
    expect(box.open(legacy, CONTEXT)).toBe('whsec_legacy');
    expect(box.open(underOld, CONTEXT)).toBe('whsec_old');
    const underNew = box.seal('whsec_new', CONTEXT);
    expect(underNew.startsWith('v2.1.')).toBe(true);
    expect(webhookSecretBox(after).open(underNew, CONTEXT)).toBe('whsec_new');
    // Retired: what only the old key opens no longer opens.
    expect(() => webhookSecretBox(after).open(underOld, CONTEXT)).toThrow(/not in the ring/);
  });

  test('a cursor tagged by the old key is accepted while the key is in the ring, and refused once it is retired', async () => {
    const position = { u: 1_700_000_000_000, i: 'prp_x' };
    const old = await encodeCursor(position, 'q', before);
    expect(await decodeCursor(old, 'q', during)).toEqual(position);
    expect(await decodeCursor(old, 'q', after)).toBeNull();
    const fresh = await encodeCursor(position, 'q', during);
    expect(await decodeCursor(fresh, 'q', after)).toEqual(position);
    // A cursor cannot claim a key other than the one that tagged it.
    expect(await decodeCursor(fresh, 'q', before)).toBeNull();
  });

  test('approximate points do not move across a rotation', async () => {
    const exact = { lat: 45.6427, lng: 25.5887 };
    const points = await Promise.all(
      [before, during, after].map((ring) => displacePoint(exact, 500, ring.geo, 'loc-1')),
    );
    expect(points[1]).toEqual(points[0]);
    expect(points[2]).toEqual(points[0]);
  });

  test('a ring without the secret points were keyed with, or with a malformed entry, is refused', () => {
    expect(() =>
      parseKeyRing({ serverSecret: undefined, serverSecrets: `1:${NEW}`, serverGeoSecret: undefined }),
    ).toThrow(/SERVER_GEO_SECRET/);
    expect(() => parseKeyRing({ serverSecret: OLD, serverSecrets: `x:${NEW}`, serverGeoSecret: undefined })).toThrow(
      /SERVER_SECRETS/,
    );
    expect(() => parseKeyRing({ serverSecret: OLD, serverSecrets: '1:short', serverGeoSecret: undefined })).toThrow(
      /shorter than 32/,
    );
  });
});

describe('the secret box', () => {
  test('refuses a value whose authentication tag was cut short', () => {
    const whole = legacySeal(OLD, 'whsec_x', CONTEXT);
    const box = webhookSecretBox(before);
    expect(box.open(whole, CONTEXT)).toBe('whsec_x');
    // An empty value with a 4-byte tag: taken as it comes, GCM would check only those 4 bytes, so
    // one in 2^32 guesses would open.
    const short = legacySeal(OLD, '', CONTEXT, 4);
    expect(() => box.open(short, CONTEXT)).toThrow();
  });

  test('a value sealed under another secret with the same key id is refused by name, not opened to garbage', () => {
    const sealed = webhookSecretBox(before).seal('whsec_x', CONTEXT);
    const other = parseKeyRing({ serverSecret: NEW, serverSecrets: undefined, serverGeoSecret: undefined });
    expect(() => webhookSecretBox(other).open(sealed, CONTEXT)).toThrow(
      'secret-box: the value does not open with key 0 of the ring (sealed under another server secret, or altered)',
    );
  });
});
