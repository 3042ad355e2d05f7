import { createHash } from 'node:crypto';
import type { Request } from 'express';

/** Weak validator of a representation: equal bodies, equal tags, whichever process served them. */
export function weakEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison, and `*` matches any current representation. */
export function matchesIfNoneMatch(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === opaque(etag));
}
