import { currentKey, keyById, singleKeyRing, type KeyRing } from '../key-ring.ts';
import { base64UrlDecode, base64UrlEncode, constantTimeEqual, hmacSha256, utf8Decode, utf8Encode } from './hmac.ts';

export type CursorPosition = Record<string, string | number>;

export const MAX_CURSOR_LENGTH = 256;
/** The shape every cursor has (payload `.` 16-byte tag, both base64url), for the description. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{22}$';

/** 128 bits of tag are plenty against forgery and keep the cursor short. */
const TAG_BYTES = 16;
const CURSOR_VERSION = 1;

/**
 * Parameters that do not define the list. `limit` is deliberately unbound, so a client may change
 * its page size between pages.
 */
const UNBOUND_PARAMETERS = new Set(['cursor', 'limit']);

/**
 * A stable short hash of the parameters that define a list (64-bit FNV-1a, 16 hex digits). It
 * needs no collision resistance: it only binds a cursor, and the cursor's tag is what stops
 * forgery. Callers pass values already normalised (for example a sorted `status` list); absent
 * parameters are `undefined` and do not count.
 */
export function hashQuery(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && !UNBOUND_PARAMETERS.has(entry[0]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return fnv1a64(JSON.stringify(entries));
}

/**
 * `base64url(JSON payload) "." base64url(tag)`. The query hash is covered by the tag but not
 * carried, so a cursor replayed on another query fails like a forged one. The payload names the
 * ring key that made the tag (`k`, left out for key 0, so cursors from before key ids still read):
 * a cursor verifies while its key is in the ring and is invalid once the key is retired.
 */
export async function encodeCursor(
  position: CursorPosition,
  queryHash: string,
  keys: KeyRing | Uint8Array,
): Promise<string> {
  const key = currentKey(ringOf(keys));
  const body = key.id === 0 ? { v: CURSOR_VERSION, p: position } : { v: CURSOR_VERSION, k: key.id, p: position };
  const payload = base64UrlEncode(utf8Encode(JSON.stringify(body)));
  const cursor = `${payload}.${base64UrlEncode(await tag(payload, queryHash, key.secret))}`;
  if (cursor.length > MAX_CURSOR_LENGTH) throw new RangeError(`encodeCursor: cursor of ${cursor.length} characters`);
  return cursor;
}

/**
 * The position, or null for a cursor that is malformed, forged, tampered, bound to another query
 * or tagged by a key no longer in the ring. The payload is parsed before the tag is checked (to
 * learn its key); it is at most 256 characters.
 */
export async function decodeCursor(
  cursor: string,
  queryHash: string,
  keys: KeyRing | Uint8Array,
): Promise<CursorPosition | null> {
  if (cursor.length > MAX_CURSOR_LENGTH) return null;
  const parts = cursor.split('.');
  if (parts.length !== 2) return null;
  const [payload, tagText] = parts as [string, string];
  const given = base64UrlDecode(tagText);
  if (given === null || given.length !== TAG_BYTES) return null;

  const bytes = base64UrlDecode(payload);
  const json = bytes === null ? null : utf8Decode(bytes);
  if (json === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isPayload(parsed)) return null;
  const key = keyById(ringOf(keys), parsed.k ?? 0);
  if (key === undefined) return null;
  if (!constantTimeEqual(given, await tag(payload, queryHash, key.secret))) return null;
  return parsed.p;
}

function ringOf(keys: KeyRing | Uint8Array): KeyRing {
  return keys instanceof Uint8Array ? singleKeyRing(keys) : keys;
}

async function tag(payload: string, queryHash: string, secret: Uint8Array): Promise<Uint8Array> {
  const digest = await hmacSha256(secret, `cursor-v${CURSOR_VERSION}|${queryHash}|${payload}`);
  return digest.slice(0, TAG_BYTES);
}

function isPayload(value: unknown): value is { v: number; k?: number; p: CursorPosition } {
  if (typeof value !== 'object' || value === null) return false;
  const { v, k, p } = value as { v?: unknown; k?: unknown; p?: unknown };
  if (v !== CURSOR_VERSION || typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  if (k !== undefined && !(typeof k === 'number' && Number.isSafeInteger(k) && k > 0)) return false;
  return Object.values(p).every(
    (item) => typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item)),
  );
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (const byte of utf8Encode(text)) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, '0');
}
