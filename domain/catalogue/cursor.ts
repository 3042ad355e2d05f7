import { base64UrlDecode, base64UrlEncode, constantTimeEqual, hmacSha256, utf8Decode, utf8Encode } from './hmac.ts';

export type CursorPosition = Record<string, string | number>;

export const MAX_CURSOR_LENGTH = 256;

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
 * carried, so a cursor replayed on another query fails like a forged one.
 */
export async function encodeCursor(position: CursorPosition, queryHash: string, secret: Uint8Array): Promise<string> {
  const payload = base64UrlEncode(utf8Encode(JSON.stringify({ v: CURSOR_VERSION, p: position })));
  const cursor = `${payload}.${base64UrlEncode(await tag(payload, queryHash, secret))}`;
  if (cursor.length > MAX_CURSOR_LENGTH) throw new RangeError(`encodeCursor: cursor of ${cursor.length} characters`);
  return cursor;
}

/** The position, or null for a cursor that is malformed, forged, tampered or bound to another query. */
export async function decodeCursor(cursor: string, queryHash: string, secret: Uint8Array): Promise<CursorPosition | null> {
  if (cursor.length > MAX_CURSOR_LENGTH) return null;
  const parts = cursor.split('.');
  if (parts.length !== 2) return null;
  const [payload, tagText] = parts as [string, string];
  const given = base64UrlDecode(tagText);
  if (given === null || given.length !== TAG_BYTES) return null;
  if (!constantTimeEqual(given, await tag(payload, queryHash, secret))) return null;

  const bytes = base64UrlDecode(payload);
  const json = bytes === null ? null : utf8Decode(bytes);
  if (json === null) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    return isPayload(parsed) ? parsed.p : null;
  } catch {
    return null;
  }
}

async function tag(payload: string, queryHash: string, secret: Uint8Array): Promise<Uint8Array> {
  const digest = await hmacSha256(secret, `cursor-v${CURSOR_VERSION}|${queryHash}|${payload}`);
  return digest.slice(0, TAG_BYTES);
}

function isPayload(value: unknown): value is { v: number; p: CursorPosition } {
  if (typeof value !== 'object' || value === null) return false;
  const { v, p } = value as { v?: unknown; p?: unknown };
  if (v !== CURSOR_VERSION || typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  return Object.values(p).every((item) => typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item)));
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
