import { crc32 } from './crc32.ts';
import { base62, randomBase62 } from './base62.ts';

export type ServiceEnvironment = 'sandbox' | 'production';

const PREFIX = { production: 'svc_live_', sandbox: 'svc_test_' } as const satisfies Record<ServiceEnvironment, string>;
export const API_KEY_LENGTH = 63;
/** Live keys a channel may hold in one environment: one in use and its replacement (docs/contract.md#limits). */
export const MAX_LIVE_KEYS = 2;
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32, so every CRC-32 fits
const SECRET_LENGTH = API_KEY_LENGTH - PREFIX.production.length - CHECKSUM_LENGTH; // 48 base62 chars, ~285 bits
const KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{48})([0-9A-Za-z]{6})$/;

/** A new key: environment prefix, 48 random base62 characters, then the CRC-32 of that secret part. */
export function generateApiKey(environment: ServiceEnvironment): string {
  const secret = randomBase62(SECRET_LENGTH);
  return `${PREFIX[environment]}${secret}${base62(crc32(secret), CHECKSUM_LENGTH)}`;
}

export type ParsedKey =
  { ok: true; environment: ServiceEnvironment; last4: string } | { ok: false; reason: 'malformed' };

/**
 * Checks shape and checksum without any lookup, so a mistyped, truncated or invented key costs
 * the service nothing.
 */
export function parseApiKey(key: string): ParsedKey {
  const match = KEY_PATTERN.exec(key);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, env, secret, checksum] = match as unknown as [string, string, string, string];
  if (base62(crc32(secret), CHECKSUM_LENGTH) !== checksum) return { ok: false, reason: 'malformed' };
  return { ok: true, environment: env === 'live' ? 'production' : 'sandbox', last4: key.slice(-4) };
}
