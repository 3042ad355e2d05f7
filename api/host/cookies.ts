import type { Request, Response } from 'express';
import { SESSION_COOKIE } from './paths.ts';

/** The session cookie's value in the request, if any (no cookie library: one name is read). */
export function readSessionCookie(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), Secure, `SameSite=Lax`: sent on the top-level navigation from
 * the platform that opens the pages (Strict would drop it on the redirect that follows a
 * cross-site link), never on a cross-site POST. Forms carry a CSRF token besides.
 */
export function setSessionCookie(res: Response, value: string, maxAgeSeconds: number): void {
  res.setHeader(
    'Set-Cookie',
    `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; Secure; HttpOnly; SameSite=Lax`,
  );
}

export function clearSessionCookie(res: Response): void {
  setSessionCookie(res, '', 0);
}
