import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { etagsOfAllCodings } from './content-coding.ts';

/** Weak validator of a representation: equal bodies, equal tags, whichever process served them. */
export function weakEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison, and `*` matches any current
 * representation. `etag` is the identity representation's tag; a tag of the same content in
 * another coding (`codedEtag`) matches too, so a client that changed its `Accept-Encoding` still
 * gets its 304 (which carries the tag of the coding it asks for now).
 */
export function matchesIfNoneMatch(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = new Set(etagsOfAllCodings(etag).map(opaque));
  return header.split(',').some((candidate) => current.has(opaque(candidate)));
}
