import https from 'node:https';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { COMPRESSION_THRESHOLD, negotiateContentCoding } from '../../api/content-coding.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { sampleProperty } from '../support/catalogue.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let key: string;

beforeAll(async () => {
  const bed = await apiTestBed();
  const { host } = bed;
  api = bed.api;
  const channel = await bed.channel({ scopes: ['read:catalog', 'read:ari'], rateLimit: 10_000 });
  key = channel.key.key;
  await host.organization('gz-org');
  await host.owner('gz-own', { organization: 'gz-org' });
  await host.location('gz-loc', { organization: 'gz-org', owner: 'gz-own' });
  await host.property('gz-p', { ...sampleProperty('gz-loc', 'gz-own'), location: 'gz-loc', owner: 'gz-own' });
  await host.distribute('gz-p', [channel.channel.name]);
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The bytes as they came over the wire, not decoded. */
  raw: Buffer;
}

/** A GET whose body is kept exactly as sent: Node's client never decodes a content coding. */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
  withKey = true,
  method = 'GET',
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, api.url),
      {
        method,
        ca: api.ca,
        agent: false,
        headers: { ...(withKey ? { authorization: `Bearer ${key}` } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const flat = Object.fromEntries(
            Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
          );
          resolve({ status: res.statusCode ?? 0, headers: flat, raw: Buffer.concat(chunks) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const decoders: Record<string, (raw: Buffer) => Buffer> = {
  zstd: (raw) => zlib.zstdDecompressSync(raw),
  br: (raw) => zlib.brotliDecompressSync(raw),
  gzip: (raw) => zlib.gunzipSync(raw),
};

const varies = (res: RawResponse) => (res.headers.vary ?? '').split(',').map((v) => v.trim().toLowerCase());

describe('Accept-Encoding negotiation (RFC 9110 §12.5.3)', () => {
  test.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip, br, zstd', 'zstd'],
    ['br;q=1, zstd;q=0.9', 'br'],
    ['gzip;q=1.0, zstd;q=0.5', 'gzip'],
    ['zstd;q=0, br;q=0, gzip', 'gzip'],
    ['zstd;q=0, *', 'br'],
    ['*', 'zstd'],
    ['*;q=0.5, gzip', 'gzip'],
    ['deflate', 'identity'],
    ['gzip;q=0.001', 'gzip'],
    ['gzip;q=0.001, identity;q=0.5', 'identity'],
    ['GZIP ; Q=0.8', 'gzip'],
    ['gzip;q=2, br;q=abc, zstd;q=0.1', 'zstd'],
    ['identity;q=0, *;q=0', 'identity'],
    ['*;q=0', 'identity'],
    ['zstd;q=0, br;q=0, gzip;q=0', 'identity'],
  ])('%j → %s', (header, expected) => {
    expect(negotiateContentCoding(header)).toBe(expected);
  });
});

describe('compressed answers', () => {
  test('each coding round-trips: the decoded page equals the identity page, with its own ETag and Vary', async () => {
    const identity = await rawGet(`${BASE}/availability`);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(Number(identity.headers['content-length'])).toBe(identity.raw.length);
    expect(varies(identity)).toContain('accept-encoding');
    expect(identity.raw.length).toBeGreaterThan(100_000);
    const tags = new Set([identity.headers.etag]);
    for (const coding of ['zstd', 'br', 'gzip']) {
      const res = await rawGet(`${BASE}/availability`, { 'accept-encoding': coding });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(coding);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(varies(res)).toContain('accept-encoding');
      expect(res.raw.length).toBeLessThan(identity.raw.length / 5);
      expect(decoders[coding]!(res.raw).equals(identity.raw)).toBe(true);
      expect(res.headers.etag).toBe(`${identity.headers.etag!.slice(0, -1)}-${coding}"`);
      tags.add(res.headers.etag);
    }
    expect(tags.size).toBe(4);
  });

  test('a coding refused with q=0 is never used; identity refused too leaves identity (the header is disregarded)', async () => {
    const noZstd = await rawGet(`${BASE}/availability`, { 'accept-encoding': 'zstd;q=0, br;q=0.5, gzip;q=0.4' });
    expect(noZstd.headers['content-encoding']).toBe('br');
    const onlyGzip = await rawGet(`${BASE}/availability`, { 'accept-encoding': '*;q=0, gzip' });
    expect(onlyGzip.headers['content-encoding']).toBe('gzip');
    const nothing = await rawGet(`${BASE}/availability`, { 'accept-encoding': 'identity;q=0, *;q=0' });
    expect(nothing.status).toBe(200);
    expect(nothing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(nothing.raw.toString('utf8')).data).toHaveLength(1);
  });

  test('a HEAD answer carries the Content-Length of the GET answer and no body, for a page written whole or in pieces', async () => {
    for (const path of [`${BASE}/channel`, `${BASE}/properties`, `${BASE}/availability`]) {
      const got = await rawGet(path);
      const head = await rawGet(path, {}, true, 'HEAD');
      expect(head.status, path).toBe(200);
      expect(Number(head.headers['content-length']), path).toBe(got.raw.length);
      expect(head.raw.length, path).toBe(0);
    }
  });

  test(`an answer under ${COMPRESSION_THRESHOLD} bytes goes as it is, still varying by Accept-Encoding`, async () => {
    const res = await rawGet(`${BASE}/channel`, { 'accept-encoding': 'zstd, br, gzip' });
    expect(res.status).toBe(200);
    expect(res.raw.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(res.raw.length);
    expect(varies(res)).toContain('accept-encoding');
    expect(JSON.parse(res.raw.toString('utf8'))).toHaveProperty('channel');
  });

  test('304 carries no body and no Content-Encoding, with the tag of the coding asked for; any coding of the tag matches', async () => {
    const identity = await rawGet(`${BASE}/availability`);
    const zstd = await rawGet(`${BASE}/availability`, { 'accept-encoding': 'zstd' });
    for (const [tag, accept] of [
      [identity.headers.etag!, 'zstd'],
      [zstd.headers.etag!, 'gzip'],
      [zstd.headers.etag!, 'identity'],
    ] as const) {
      const res = await rawGet(`${BASE}/availability`, { 'accept-encoding': accept, 'if-none-match': tag });
      expect(res.status).toBe(304);
      expect(res.raw.length).toBe(0);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.etag).toBe(
        accept === 'identity' ? identity.headers.etag : `${identity.headers.etag!.slice(0, -1)}-${accept}"`,
      );
      expect(varies(res)).toContain('accept-encoding');
    }
  });

  test('a problem is compressed when large, as it is when small', async () => {
    const unknown = Array.from({ length: 60 }, (_, i) => `unknown_parameter_${i}=1`).join('&');
    const large = await rawGet(`${BASE}/availability?${unknown}`, { 'accept-encoding': 'gzip' });
    expect(large.status).toBe(400);
    expect(large.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(large.headers['content-encoding']).toBe('gzip');
    expect(varies(large)).toContain('accept-encoding');
    const problem = JSON.parse(zlib.gunzipSync(large.raw).toString('utf8'));
    expect(problem.code).toBe('invalid_parameters');
    expect(JSON.stringify(problem).length).toBeGreaterThanOrEqual(COMPRESSION_THRESHOLD);

    const small = await rawGet(`${BASE}/properties/prp_0000000000000000000000000`, { 'accept-encoding': 'gzip' });
    expect(small.status).toBe(404);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.raw.toString('utf8')).code).toBe('not_found');
  });

  test('the description is compressed too, once per coding, and round-trips', async () => {
    const identity = await rawGet(`${BASE}/openapi.json`, {}, false);
    expect(identity.status).toBe(200);
    for (const coding of ['zstd', 'br', 'gzip']) {
      const res = await rawGet(`${BASE}/openapi.json`, { 'accept-encoding': coding }, false);
      expect(res.headers['content-encoding']).toBe(coding);
      expect(varies(res)).toContain('accept-encoding');
      expect(decoders[coding]!(res.raw).equals(identity.raw)).toBe(true);
      expect(res.headers.etag).not.toBe(identity.headers.etag);
    }
  });
});
