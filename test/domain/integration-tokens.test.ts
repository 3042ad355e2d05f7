import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { generateApiKey, parseApiKey } from '../../domain/api-keys.ts';
import { E164, GuestInput, guestNames } from '../../domain/guests.ts';
import {
  generateIntegrationToken,
  INTEGRATION_TOKEN_LENGTH,
  parseIntegrationToken,
} from '../../domain/integration-tokens.ts';

/** The format built independently: node:zlib's CRC-32 of prefix and secret, in 6 base62 digits. */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function checksumOf(body: string): string {
  let rest = zlibCrc32(body);
  let out = '';
  for (let i = 0; i < 6; i += 1) {
    out = DIGITS[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

describe('integration token format', () => {
  test.each(['sandbox', 'production'] as const)(
    'a %s token is 64 characters with its prefix, a checksum over prefix and secret, and parses back',
    (environment) => {
      const token = generateIntegrationToken(environment);
      expect(token).toHaveLength(INTEGRATION_TOKEN_LENGTH);
      expect(INTEGRATION_TOKEN_LENGTH).toBe(64);
      expect(token.startsWith(environment === 'production' ? 'svci_live_' : 'svci_test_')).toBe(true);
      expect(token.slice(-6)).toBe(checksumOf(token.slice(0, -6)));
      expect(parseIntegrationToken(token)).toEqual({ ok: true, environment, last4: token.slice(-4) });
    },
  );

  test('tokens do not repeat', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateIntegrationToken('sandbox')));
    expect(seen.size).toBe(200);
  });

  const token = generateIntegrationToken('sandbox');
  const secret = token.slice('svci_test_'.length, -6);
  const channelKey = generateApiKey('sandbox');
  // Two neighbours that differ: swapping equal characters would give the token back (1 run in 62).
  const swapAt = [...token].findIndex((char, i) => i >= 20 && char !== token[i + 1]);
  test.each([
    ['one character changed', `${token.slice(0, 20)}${token[20] === 'a' ? 'b' : 'a'}${token.slice(21)}`],
    [
      'two characters swapped',
      `${token.slice(0, swapAt)}${token[swapAt + 1]}${token[swapAt]}${token.slice(swapAt + 2)}`,
    ],
    ['the checksum changed', `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`],
    ['truncated', token.slice(0, -1)],
    ['one character too many', `${token}a`],
    ['the other prefix on the same secret and checksum', `svci_live_${secret}${token.slice(-6)}`],
    ['a channel key', channelKey],
    ["a channel key's secret under an integration prefix", `svci_test_${channelKey.slice(9)}`],
    ['a character outside base62', `${token.slice(0, 30)}-${token.slice(31)}`],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl'],
    ['empty', ''],
  ])('refused before any lookup: %s', (_what, candidate) => {
    expect(parseIntegrationToken(candidate)).toEqual({ ok: false });
  });

  test('an integration token is no channel key', () => {
    expect(parseApiKey(token)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('guest input', () => {
  const valid = {
    organization: 'org-1',
    first_name: 'Ana',
    last_name: 'Popescu',
    email: 'ana@example.com',
    phone: '+40721000000',
  };

  test.each([
    ['+40721000000', true],
    ['+14155550123', true],
    ['+6831234', true],
    ['+123456789012345', true],
    ['+1234567890123456', false],
    ['+123456', false],
    ['0721000000', false],
    ['+40 721 000 000', false],
    ['+0721000000', false],
    ['40721000000', false],
  ])('E.164 %s: %s', (phone, ok) => {
    expect(E164.test(phone)).toBe(ok);
    expect(GuestInput.safeParse({ ...valid, phone }).success).toBe(ok);
  });

  test.each([
    [{ email: 'ana@' }, ['email']],
    [{ email: 'ana.example.com' }, ['email']],
    [{ first_name: '   ' }, ['first_name']],
    [{ last_name: 'Po\u0000pescu' }, ['last_name']],
    [{ first_name: 'A'.repeat(101) }, ['first_name']],
    [{ organization: 'bad ref' }, ['organization']],
    [{ email: 'x', phone: 'y' }, ['email', 'phone']],
  ])('%j is refused at %j', (change, paths) => {
    const parsed = GuestInput.safeParse({ ...valid, ...change });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join('/')).sort()).toEqual(paths);
  });

  test('names are trimmed', () => {
    expect(GuestInput.parse({ ...valid, first_name: '  Ana ' }).first_name).toBe('Ana');
  });

  test.each([
    [
      { first_name: 'Ana', last_name: 'Popescu' },
      { name: 'Popescu, Ana', full_name: 'Ana Popescu' },
    ],
    [
      { first_name: 'Jean-Luc', last_name: 'de la Tour' },
      { name: 'de la Tour, Jean-Luc', full_name: 'Jean-Luc de la Tour' },
    ],
  ])('names of %j', (guest, names) => {
    expect(guestNames(guest)).toEqual(names);
  });
});
