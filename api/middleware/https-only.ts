import type { RequestHandler } from 'express';
import { sendProblem } from '../problem.ts';

/**
 * Refuses anything that did not arrive over TLS, never redirecting. Behind a TLS-terminating
 * proxy (TRUST_PROXY) Express derives `req.secure` from X-Forwarded-Proto; otherwise from the socket.
 */
export const httpsOnly: RequestHandler = (req, res, next) => {
  if (req.secure) {
    res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    next();
    return;
  }
  refusePlainHttp(req, res, next);
};

/** The answer to anything that came over plain HTTP; never a redirect. */
export const refusePlainHttp: RequestHandler = (req, res) => {
  sendProblem(req, res, 'https_required', { detail: 'Use https. A key sent over plain HTTP is to be treated as compromised and rolled.' });
};
