import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import type { Request, Response } from 'express';

/**
 * Compressed answers (RFC 9110 §8.4, §12.5.3). A client that sends `Accept-Encoding` naming zstd,
 * br or gzip gets JSON answers of `COMPRESSION_THRESHOLD` bytes or more in that coding, compressed
 * as they are written; a channel pulling gigabytes of availability over the internet is limited
 * by its bandwidth, not by the service. Levels are the cheap ones (measured by
 * `npm run bench:availability`): the service spends a few milliseconds of CPU on a 5 MB page.
 */

export type ContentCoding = 'zstd' | 'br' | 'gzip' | 'identity';

/** Preference among codings of equal weight: smaller and cheaper first; identity last. */
const PREFERENCE: readonly ContentCoding[] = ['zstd', 'br', 'gzip', 'identity'];

/** Below this many bytes an answer goes as it is: compressing it saves less than it costs. */
export const COMPRESSION_THRESHOLD = 1024;

const QVALUE = /^\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/i;

/**
 * The coding to answer in, from `Accept-Encoding` (RFC 9110 §12.5.3): the acceptable coding of
 * highest weight, zstd before br before gzip before identity when weights are equal. `*` stands
 * for every coding not named; `x-gzip` is gzip. Identity is acceptable unless `identity;q=0` (or
 * `*;q=0` without naming identity) refuses it, and ranks below every coding named with a weight.
 * No header: identity. When the header refuses every coding the service has, identity too: RFC 9110
 * §12.1 lets a server disregard the field rather than answer 406, and the contract has no such refusal.
 */
export function negotiateContentCoding(header: string | undefined): ContentCoding {
  if (header === undefined) return 'identity';
  const weights = new Map<string, number>();
  for (const element of header.split(',')) {
    const [rawName = '', ...parameters] = element.split(';');
    const token = rawName.trim().toLowerCase();
    if (token === '') continue;
    let weight = 1;
    let valid = true;
    for (const parameter of parameters) {
      if (!/^\s*q\s*=/i.test(parameter)) continue;
      const match = QVALUE.exec(parameter);
      if (match) weight = Number(match[1]);
      else valid = false;
    }
    if (!valid) continue; // a malformed weight: the element is ignored, as if not sent
    const name = token === 'x-gzip' ? 'gzip' : token;
    weights.set(name, weight);
  }
  const star = weights.get('*');
  const weightOf = (coding: ContentCoding): number => {
    const named = weights.get(coding);
    if (named !== undefined) return named;
    // Identity not named: acceptable unless `*;q=0`, below every coding named with a weight.
    if (coding === 'identity') return star === undefined ? Number.MIN_VALUE : star;
    return star ?? 0;
  };
  let best: ContentCoding = 'identity';
  let bestWeight = 0;
  for (const coding of PREFERENCE) {
    const weight = weightOf(coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  return best;
}

/** The coding of an answer of `bytes` bytes (an estimate is enough) for this request. */
export function codingFor(req: Request, bytes: number): ContentCoding {
  return bytes < COMPRESSION_THRESHOLD ? 'identity' : negotiateContentCoding(req.get('accept-encoding'));
}

function compressor(
  coding: Exclude<ContentCoding, 'identity'>,
  sizeHint: number,
): zlib.Gzip | zlib.BrotliCompress | zlib.ZstdCompress {
  const { constants } = zlib;
  if (coding === 'zstd') return zlib.createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 3 } });
  if (coding === 'br')
    return zlib.createBrotliCompress({
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 4,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: sizeHint,
      },
    });
  return zlib.createGzip({ level: 6 });
}

/** One-shot compression of a body kept in memory (the description), same levels. */
export function compressSync(coding: Exclude<ContentCoding, 'identity'>, body: Buffer): Buffer {
  const { constants } = zlib;
  if (coding === 'zstd') return zlib.zstdCompressSync(body, { params: { [constants.ZSTD_c_compressionLevel]: 3 } });
  if (coding === 'br')
    return zlib.brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    });
  return zlib.gzipSync(body, { level: 6 });
}

/**
 * The weak ETag of a representation in `coding`: the identity tag with the coding appended, so
 * the compressed and identity representations never share a tag (RFC 9110 §8.8.3: they differ in
 * their bytes, and a cache or a range request must not take one for the other).
 */
export function codedEtag(etag: string, coding: ContentCoding): string {
  return coding === 'identity' ? etag : `${etag.slice(0, -1)}-${coding}"`;
}

/** Every tag the representations of `etag` carry, one per coding. */
export function etagsOfAllCodings(etag: string): string[] {
  return PREFERENCE.map((coding) => codedEtag(etag, coding));
}

/**
 * Writes `chunks` as the body in `coding`, after `res`'s status and headers are set (but not
 * Content-Length). Identity: with Content-Length, one chunk as it is, several as one corked
 * write each, no join into one string. Otherwise the chunks go through the compressor as they
 * are written, the answer chunked.
 */
export function writeBody(res: Response, coding: ContentCoding, chunks: readonly (string | Buffer)[]): void {
  if (coding === 'identity') {
    if (chunks.length === 1 && res.req.method !== 'HEAD') {
      // Node sets Content-Length from the one chunk itself; measuring it here too would walk a
      // page of several hundred KB twice (a HEAD answer sends no chunk, so it is told below).
      res.end(chunks[0]);
      return;
    }
    let length = 0;
    for (const chunk of chunks) length += Buffer.byteLength(chunk);
    res.setHeader('Content-Length', String(length));
    if (chunks.length === 1) {
      res.end(chunks[0]);
      return;
    }
    res.cork();
    for (const chunk of chunks) res.write(chunk);
    res.end();
    res.uncork();
    return;
  }
  let estimate = 0;
  for (const chunk of chunks) estimate += chunk.length;
  res.setHeader('Content-Encoding', coding);
  res.removeHeader('Content-Length');
  const stream = compressor(coding, estimate);
  // A failure mid-body cannot become a problem any more: the connection is closed instead.
  pipeline(stream, res, (error) => {
    if (error) res.destroy();
  });
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
}
