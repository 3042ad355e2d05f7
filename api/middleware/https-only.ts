import type { Request, RequestHandler } from 'express';
import { sendProblem } from '../problem.ts';

/**
 * Behind trusted proxies Express takes the leftmost X-Forwarded-Proto, which a proxy that appends
 * leaves to the client: every hop must say https.
 */
function everyHopHttps(req: Request): boolean {
  const header = req.get('x-forwarded-proto');
  if (header === undefined) return true;
  const trust = req.app.get('trust proxy fn') as (address: string | undefined, hop: number) => boolean;
  if (!trust(req.socket.remoteAddress, 0)) return true;
  return header.split(',').every((value) => value.trim().toLowerCase() === 'https');
}

/**
 * Refuses anything that did not arrive over TLS, never redirecting. Behind a TLS-terminating
 * proxy (TRUST_PROXY) Express derives `req.secure` from X-Forwarded-Proto; otherwise from the socket.
 */
export const httpsOnly: RequestHandler = (req, res, next) => {
  if (req.secure && everyHopHttps(req)) {
    res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    next();
    return;
  }
  refusePlainHttp(req, res, next);
};

/** The answer to anything that came over plain HTTP; never a redirect. */
export const refusePlainHttp: RequestHandler = (req, res) => {
  sendProblem(req, res, 'https_required', {
    detail: 'Use https. A key sent over plain HTTP is to be treated as compromised and rolled.',
  });
};
