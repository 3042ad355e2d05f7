import type { ServiceEnvironment } from './api-keys.ts';
import { crc32 } from './crc32.ts';
import { base62, randomBase62 } from './base62.ts';

/**
 * Integration tokens: what an installed app sends to the integration interface. The shape
 * follows the channel keys' (domain/api-keys.ts) but can never be taken for one: another prefix
 * (`svci_`), another length (64), and a checksum over the prefix as well as the secret, so a
 * channel key's body under an integration prefix, or the other way round, fails the checksum.
 */
const PREFIX = { production: 'svci_live_', sandbox: 'svci_test_' } as const satisfies Record<
  ServiceEnvironment,
  string
>;
const SECRET_LENGTH = 48; // ~285 bits
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32, so every CRC-32 fits
export const INTEGRATION_TOKEN_LENGTH = PREFIX.production.length + SECRET_LENGTH + CHECKSUM_LENGTH;
const TOKEN_PATTERN = /^(svci_(live|test)_[0-9A-Za-z]{48})([0-9A-Za-z]{6})$/;

/** The scopes an installation can be granted; each integration operation names the one it needs. */
export const INTEGRATION_SCOPES = ['guests.read'] as const;
export type IntegrationScope = (typeof INTEGRATION_SCOPES)[number];

const checksum = (body: string) => base62(crc32(body), CHECKSUM_LENGTH);

/** A new token: environment prefix, 48 random base62 characters, then the CRC-32 of both. */
export function generateIntegrationToken(environment: ServiceEnvironment): string {
  const body = `${PREFIX[environment]}${randomBase62(SECRET_LENGTH)}`;
  return `${body}${checksum(body)}`;
}

export type ParsedIntegrationToken = { ok: true; environment: ServiceEnvironment; last4: string } | { ok: false };

/** Shape and checksum, with no lookup: a mistyped or foreign token costs the service nothing. */
export function parseIntegrationToken(token: string): ParsedIntegrationToken {
  const match = TOKEN_PATTERN.exec(token);
  if (!match || checksum(match[1]!) !== match[3]) return { ok: false };
  return { ok: true, environment: match[2] === 'live' ? 'production' : 'sandbox', last4: token.slice(-4) };
}

/** Requests per installation per one-minute window; refusals after authentication count too. */
export const INTEGRATION_RATE_LIMIT_PER_MINUTE = 120;
