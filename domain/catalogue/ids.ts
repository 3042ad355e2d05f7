import { ulid } from 'ulid';

/**
 * External ids are minted once per (channel, internal resource) and never reused. The contract
 * fixes the first six prefixes; `whk_` (webhook endpoint) and `dlv_` (delivery) are the
 * service's own choice, since the contract names neither.
 */
export const ID_PREFIXES = {
  property: 'prp_',
  location: 'loc_',
  owner: 'own_',
  photo: 'pho_',
  rate_plan: 'rpl_',
  event: 'evt_',
  webhook: 'whk_',
  delivery: 'dlv_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export const ID_KINDS = Object.keys(ID_PREFIXES) as IdKind[];

/** A ULID in lowercase Crockford base32: the first character carries only 3 bits of the time. */
const ULID_BODY = '[0-7][0-9a-hjkmnp-tv-z]{25}';

export const ID_PATTERNS = Object.fromEntries(
  ID_KINDS.map((kind) => [kind, new RegExp(`^${ID_PREFIXES[kind]}${ULID_BODY}$`)]),
) as Record<IdKind, RegExp>;

/** Largest instant a ULID can encode (2^48 - 1 ms). */
const ULID_TIME_MAX = 281_474_976_710_655;

/**
 * `now` is epoch milliseconds from the caller's clock. `random` returns numbers in [0, 1); the
 * default is the ulid package's generator over `crypto.getRandomValues`.
 */
export function newExternalId(kind: IdKind, now: number, random?: () => number): string {
  // ulid() silently falls back to Date.now() for 0 or NaN, which would hide a broken clock.
  if (!Number.isInteger(now) || now <= 0 || now > ULID_TIME_MAX) {
    throw new RangeError(`newExternalId: now must be a positive integer of milliseconds, got ${now}`);
  }
  return ID_PREFIXES[kind] + ulid(now, random).toLowerCase();
}

export function isExternalId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERNS[kind].test(value);
}

/** The kind named by a well-formed id, or null. */
export function externalIdKind(value: unknown): IdKind | null {
  return ID_KINDS.find((kind) => isExternalId(kind, value)) ?? null;
}
