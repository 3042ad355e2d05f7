import { describe, expect, test } from 'vitest';
import {
  endpointHost,
  MAX_ENDPOINTS,
  previousSecretExpiry,
  previousSecretLive,
  registrationRefusal,
  SECRET_OVERLAP_MS,
} from '../../domain/webhooks/endpoints.ts';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://receiver.example/${i}`);

describe('registering an endpoint beside the live ones', () => {
  test('at most five', () => {
    expect(MAX_ENDPOINTS).toBe(5);
  });

  test.each<[string[], string, string | null]>([
    [[], 'https://receiver.example/new', null],
    [urls(4), 'https://receiver.example/new', null],
    [urls(5), 'https://receiver.example/new', 'webhook_endpoint_limit_reached'],
    [urls(6), 'https://receiver.example/new', 'webhook_endpoint_limit_reached'],
    [urls(1), 'https://receiver.example/0', 'webhook_endpoint_exists'],
    // The same URL is named first, even at the limit.
    [urls(5), 'https://receiver.example/4', 'webhook_endpoint_exists'],
    [urls(1), 'https://receiver.example/0/', null],
  ])('beside %j, %s: %s', (live, url, refusal) => {
    expect(registrationRefusal(live, url)).toBe(refusal);
  });
});

describe('the secret a rotation replaces', () => {
  test('signs 24 hours more', () => {
    expect(SECRET_OVERLAP_MS).toBe(24 * 3600 * 1000);
  });

  test.each<[boolean, boolean, string | null]>([
    [true, false, '2026-11-23T10:00:00.000Z'],
    [true, true, null],
    [false, false, null],
    [false, true, null],
  ])('had a secret %s, expire immediately %s: signs until %s', (hadSecret, expireImmediately, until) => {
    expect(previousSecretExpiry({ hadSecret, expireImmediately, now: NOW })?.toISOString() ?? null).toBe(until);
  });

  test.each<[string | null, string | null, boolean]>([
    ['sealed', '2026-11-22T10:00:00.001Z', true],
    ['sealed', '2026-11-23T09:59:59.999Z', true],
    ['sealed', '2026-11-22T10:00:00.000Z', false],
    ['sealed', '2026-11-22T09:59:59.999Z', false],
    ['sealed', null, false],
    [null, '2026-11-23T10:00:00.000Z', false],
    [null, null, false],
  ])('previous secret %s, expiring %s: live %s', (previousSecret, expiresAt, live) => {
    const endpoint = { previousSecret, previousSecretExpiresAt: expiresAt === null ? null : new Date(expiresAt) };
    expect(previousSecretLive(endpoint, NOW)).toBe(live);
  });
});

describe('an endpoint as operators are shown it', () => {
  test.each([
    ['https://hooks.partner.example/receive?token=s3cret', 'hooks.partner.example'],
    ['https://user:pass@hooks.partner.example/t/abc', 'hooks.partner.example'],
    ['https://localhost:8443/hooks', 'localhost:8443'],
    ['not a url', 'unknown host'],
  ])('%s: by its host, %s', (url, host) => {
    expect(endpointHost(url)).toBe(host);
  });
});
