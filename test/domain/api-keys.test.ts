import { describe, expect, test } from 'vitest';
import { API_KEY_LENGTH, generateApiKey, parseApiKey } from '../../domain/api-keys.ts';
import { crc32 } from '../../domain/crc32.ts';
import { negotiateLanguage, PROBLEMS, problemBySlug, problemSlug, type ProblemCode } from '../../domain/problems.ts';

describe('API key format', () => {
  test('CRC-32 matches the standard check value', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });

  test.each(['sandbox', 'production'] as const)('a %s key is 63 characters with its prefix and parses back', (environment) => {
    const key = generateApiKey(environment);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(key.startsWith(environment === 'production' ? 'svc_live_' : 'svc_test_')).toBe(true);
    expect(parseApiKey(key)).toEqual({ ok: true, environment, last4: key.slice(-4) });
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

  test('every code of the contract\'s Errors section is in the catalogue with its status', () => {
    const contract: Record<string, number> = {
      invalid_parameters: 400, invalid_cursor: 400, window_beyond_horizon: 400,
      missing_api_key: 401, invalid_api_key: 401, api_key_wrong_environment: 401, api_key_expired: 401, api_key_revoked: 401,
      insufficient_scope: 403, partner_suspended: 403, not_found: 404, method_not_allowed: 405,
      webhook_endpoint_exists: 409, webhook_endpoint_limit_reached: 409, webhooks_suspended_by_platform: 409, webhook_endpoint_still_failing: 409,
      sync_window_expired: 410, event_cursor_expired: 410, unsupported_media_type: 415,
      rate_limited: 429, too_many_failed_authentications: 429, internal: 500, service_unavailable: 503,
    };
    for (const [code, status] of Object.entries(contract)) expect(PROBLEMS[code as ProblemCode]?.status, code).toBe(status);
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
