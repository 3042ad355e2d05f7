import { describe, expect, test } from 'vitest';
import {
  CURSOR_PATTERN,
  decodeCursor,
  encodeCursor,
  hashQuery,
  MAX_CURSOR_LENGTH,
  type CursorPosition,
} from '../../domain/catalogue/cursor.ts';
import { base64UrlDecode, base64UrlEncode, hmacSha256 } from '../../domain/catalogue/hmac.ts';

const SECRET = new TextEncoder().encode('cursor-secret-0123456789abcdefgh');
const OTHER_SECRET = new TextEncoder().encode('cursor-secret-0123456789abcdefgX');
const POSITION: CursorPosition = { u: '2025-06-15T10:21:07Z', id: 'prp_01jwnnsvg0abcdefghjkmnpqrs', n: 123456789 };
const QUERY = hashQuery({ updated_since: '2025-06-01T00:00:00Z', status: 'active,inactive' });

describe('hashQuery', () => {
  test('is stable, short and independent of parameter order', () => {
    const a = hashQuery({ status: 'active', updated_since: '2025-06-01T00:00:00Z' });
    const b = hashQuery({ updated_since: '2025-06-01T00:00:00Z', status: 'active' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });

  test('limit, cursor and absent parameters do not bind', () => {
    const base = hashQuery({ status: 'active' });
    expect(hashQuery({ status: 'active', limit: '10', cursor: 'abc', updated_since: undefined })).toBe(base);
  });

  test.each([
    [{ status: 'active' }, { status: 'inactive' }],
    [{ status: 'active' }, {}],
    [{ status: 'active' }, { state: 'active' }],
    [
      { a: 'b', c: 'd' },
      { a: 'b,c', '': 'd' },
    ],
    [{ status: '' }, {}],
  ])('%o and %o differ', (a, b) => {
    expect(hashQuery(a)).not.toBe(hashQuery(b));
  });
});

describe('encodeCursor / decodeCursor', () => {
  test('every cursor has the shape the description states, the smallest position included', async () => {
    for (const position of [POSITION, {}, { i: 'x' }])
      expect(await encodeCursor(position, QUERY, SECRET)).toMatch(new RegExp(CURSOR_PATTERN));
  });

  test.each([
    '0',
    'abc',
    'a.b',
    `${'A'.repeat(16)}.${'A'.repeat(21)}`,
    `${'A'.repeat(15)}.${'A'.repeat(22)}`,
    `${'A'.repeat(16)}=.${'A'.repeat(22)}`,
  ])('%s, outside the described shape, does not decode', async (text) => {
    expect(new RegExp(CURSOR_PATTERN).test(text)).toBe(false);
    expect(await decodeCursor(text, QUERY, SECRET)).toBeNull();
  });

  test('round trip', async () => {
    const cursor = await encodeCursor(POSITION, QUERY, SECRET);
    expect(await decodeCursor(cursor, QUERY, SECRET)).toEqual(POSITION);
  });

  test('stays well under the 256-character limit for a realistic position', async () => {
    const cursor = await encodeCursor(POSITION, QUERY, SECRET);
    expect(cursor.length).toBeLessThan(200);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
  });

  test('refuses to mint a cursor longer than the limit', async () => {
    await expect(encodeCursor({ id: 'x'.repeat(200) }, QUERY, SECRET)).rejects.toThrow(RangeError);
  });

  test('changing any one character makes it invalid', async () => {
    const cursor = await encodeCursor(POSITION, QUERY, SECRET);
    for (let i = 0; i < cursor.length; i += 1) {
      const replacement = cursor[i] === 'A' ? 'B' : 'A';
      const tampered = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
      expect(await decodeCursor(tampered, QUERY, SECRET)).toBeNull();
    }
  });

  test('a cursor of another query is refused', async () => {
    const cursor = await encodeCursor(POSITION, QUERY, SECRET);
    expect(await decodeCursor(cursor, hashQuery({ status: 'active' }), SECRET)).toBeNull();
  });

  test('a cursor signed with another secret is refused', async () => {
    const cursor = await encodeCursor(POSITION, QUERY, OTHER_SECRET);
    expect(await decodeCursor(cursor, QUERY, SECRET)).toBeNull();
  });

  test.each([
    ['empty', ''],
    ['no separator', 'abc'],
    ['three parts', 'a.b.c'],
    ['not base64url', 'a+b.c/d'],
    ['too long', 'a'.repeat(MAX_CURSOR_LENGTH + 1)],
  ])('%s is refused', async (_label, cursor) => {
    expect(await decodeCursor(cursor, QUERY, SECRET)).toBeNull();
  });

  // Signed exactly as the encoder signs, so only the payload check can refuse these.
  async function signed(payloadBytes: Uint8Array): Promise<string> {
    const payload = base64UrlEncode(payloadBytes);
    const tag = (await hmacSha256(SECRET, `cursor-v1|${QUERY}|${payload}`)).slice(0, 16);
    return `${payload}.${base64UrlEncode(tag)}`;
  }
  const utf8 = (text: string) => new TextEncoder().encode(text);

  test('the signing scheme in these tests matches the encoder', async () => {
    const cursor = await signed(utf8(JSON.stringify({ v: 1, p: { id: 'x' } })));
    expect(cursor).toBe(await encodeCursor({ id: 'x' }, QUERY, SECRET));
  });

  test.each([
    ['not JSON', utf8('{v:1')],
    ['not UTF-8', new Uint8Array([0xff, 0xfe])],
    ['an array', utf8('[1,2]')],
    ['another version', utf8('{"v":2,"p":{"id":"x"}}')],
    ['no position', utf8('{"v":1}')],
    ['a position that is an array', utf8('{"v":1,"p":["x"]}')],
    ['a boolean in the position', utf8('{"v":1,"p":{"id":true}}')],
    ['a nested object in the position', utf8('{"v":1,"p":{"id":{"a":1}}}')],
  ])('a signed payload with %s is refused', async (_label, payload) => {
    expect(await decodeCursor(await signed(payload), QUERY, SECRET)).toBeNull();
  });
});

describe('base64url', () => {
  test.each([[[]], [[0]], [[0, 1]], [[255, 254, 253]], [[251, 255, 191, 0, 62, 63]]])('round trips %o', (bytes) => {
    const data = new Uint8Array(bytes);
    const text = base64UrlEncode(data);
    expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
    expect(base64UrlDecode(text)).toEqual(data);
  });

  test.each(['AB=', 'A', 'AB+/', 'AB C', 'AR'])('refuses %s', (text) => {
    expect(base64UrlDecode(text)).toBeNull();
  });
});

describe('hmacSha256', () => {
  test("Node's HMAC (used where Node is) gives Web Crypto's tag (used in workflows), so a value signed by one verifies in the other", async () => {
    for (const [secret, message] of [
      [SECRET, 'cursor-v1|abc|payload'],
      [new Uint8Array(64).fill(7), 'ș ☃ '.repeat(50)],
      [new Uint8Array([1]), ''],
    ] as const) {
      const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message)));
      expect(await hmacSha256(secret, message)).toEqual(expected);
    }
  });
});
