import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { API_KEY_LENGTH, generateApiKey, parseApiKey } from '../../domain/api-keys.ts';
import { crc32 } from '../../domain/crc32.ts';
import { negotiateLanguage, PROBLEMS, problemBySlug, problemSlug, type ProblemCode } from '../../domain/problems.ts';

describe('API key format', () => {
  test('CRC-32 matches the standard check value', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  test.each(['sandbox', 'production'] as const)(
    'a %s key is 63 characters with its prefix and parses back',
    (environment) => {
      const key = generateApiKey(environment);
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(key.startsWith(environment === 'production' ? 'svc_live_' : 'svc_test_')).toBe(true);
      expect(parseApiKey(key)).toEqual({ ok: true, environment, last4: key.slice(-4) });
    },
  );

  /** The key format built independently of the service: node:zlib's CRC-32 of the secret part only, in 6 base62 digits. */
  const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  function checksumOf(secret: string): string {
    let rest = zlibCrc32(secret);
    let out = '';
    for (let i = 0; i < 6; i += 1) {
      out = DIGITS[rest % 62]! + out;
      rest = Math.floor(rest / 62);
    }
    return out;
  }
  const SECRETS = [
    '0'.repeat(48),
    'z'.repeat(48),
    DIGITS.slice(0, 48),
    'Rk7pQ2mXv9LwT4sNbY1cH8dJfG3aZ6eU5oViK0tMqWrnSyBx',
  ];

  // Known answers, computed once with Python's zlib.crc32 and the same base62 digits.
  test.each([
    [`svc_test_${'0'.repeat(48)}0HkJVB`, 'sandbox'],
    [`svc_live_${'z'.repeat(48)}1M8aJa`, 'production'],
  ] as const)("the known-answer key %s parses, and the test's encoding gives its checksum", (key, environment) => {
    expect(checksumOf(key.slice(9, -6))).toBe(key.slice(-6));
    expect(parseApiKey(key)).toEqual({ ok: true, environment, last4: key.slice(-4) });
  });

  test.each(SECRETS)(
    'a key whose last 6 characters are the CRC-32 of its secret part %s alone parses, in both environments',
    (secret) => {
      const checksum = checksumOf(secret);
      expect(parseApiKey(`svc_test_${secret}${checksum}`)).toEqual({
        ok: true,
        environment: 'sandbox',
        last4: checksum.slice(-4),
      });
      expect(parseApiKey(`svc_live_${secret}${checksum}`)).toEqual({
        ok: true,
        environment: 'production',
        last4: checksum.slice(-4),
      });
    },
  );

  test.each(SECRETS)('a key whose checksum covers the prefix too is refused (secret %s)', (secret) => {
    expect(parseApiKey(`svc_test_${secret}${checksumOf(`svc_test_${secret}`)}`)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  test('a generated key ends in the CRC-32 of its secret part alone', () => {
    for (let i = 0; i < 20; i += 1) {
      const key = generateApiKey(i % 2 === 0 ? 'sandbox' : 'production');
      expect(key.slice(-6)).toBe(checksumOf(key.slice(9, -6)));
    }
  });

  test('keys do not repeat', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey('sandbox')));
    expect(keys.size).toBe(500);
  });

  test('every single-character typo in the secret is caught by the checksum', () => {
    const key = generateApiKey('sandbox');
    for (let i = 9; i < 9 + 48; i++) {
      const replacement = key[i] === 'a' ? 'b' : 'a';
      expect(parseApiKey(key.slice(0, i) + replacement + key.slice(i + 1)).ok).toBe(false);
    }
  });

  test.each([
    ['truncated', (k: string) => k.slice(0, -1)],
    ['extended', (k: string) => `${k}x`],
    ['unknown prefix', (k: string) => `svc_prod_${k.slice(9)}`],
    ['wrong checksum', (k: string) => `${k.slice(0, -6)}000000`],
    ['non-base62 character', (k: string) => `${k.slice(0, 20)}-${k.slice(21)}`],
    ['surrounding space', (k: string) => ` ${k}`],
  ])('refuses a %s key before any lookup', (_name, mutate) => {
    expect(parseApiKey(mutate(generateApiKey('sandbox')))).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('problem catalogue', () => {
  const codes = Object.keys(PROBLEMS) as ProblemCode[];

  test("every code of the contract's Errors section is in the catalogue with its status", () => {
    const contract: Record<string, number> = {
      invalid_parameters: 400,
      invalid_cursor: 400,
      window_beyond_horizon: 400,
      missing_api_key: 401,
      invalid_api_key: 401,
      api_key_wrong_environment: 401,
      api_key_expired: 401,
      api_key_revoked: 401,
      insufficient_scope: 403,
      partner_suspended: 403,
      not_found: 404,
      method_not_allowed: 405,
      webhook_endpoint_exists: 409,
      webhook_endpoint_limit_reached: 409,
      webhooks_suspended_by_platform: 409,
      webhook_endpoint_still_failing: 409,
      sync_window_expired: 410,
      event_cursor_expired: 410,
      unsupported_media_type: 415,
      rate_limited: 429,
      too_many_failed_authentications: 429,
      internal: 500,
      service_unavailable: 503,
    };
    for (const [code, status] of Object.entries(contract))
      expect(PROBLEMS[code as ProblemCode]?.status, code).toBe(status);
  });

  test('slugs are unique and resolve back to their code', () => {
    expect(new Set(codes.map(problemSlug)).size).toBe(codes.length);
    for (const code of codes) expect(problemBySlug(problemSlug(code))).toBe(code);
    expect(problemBySlug('no-such-problem')).toBeUndefined();
  });

  test('every code has an English and a Romanian title', () => {
    for (const code of codes) {
      expect(PROBLEMS[code].title.en.length, code).toBeGreaterThan(0);
      expect(PROBLEMS[code].title.ro.length, code).toBeGreaterThan(0);
    }
  });

  test.each([
    [undefined, 'en'],
    ['ro', 'ro'],
    ['ro-RO,ro;q=0.9,en;q=0.8', 'ro'],
    ['de-DE,de;q=0.9', 'en'],
    ['de;q=1, ro;q=0.5', 'ro'],
    ['en;q=0.2, ro;q=0.8', 'ro'],
    ['ro;q=0, en', 'en'],
    ['*', 'en'],
  ])('Accept-Language %s gives %s', (header, expected) => {
    expect(negotiateLanguage(header)).toBe(expected);
  });
});
