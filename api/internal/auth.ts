import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sha256 } from '../../infra/secrets.ts';
import type { AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';
import { failedAuthentications } from '../middleware/auth-failures.ts';

const CHALLENGE = 'Bearer realm="platform"';

/**
 * The platform's token, compared as SHA-256 digests in constant time. A channel key is refused
 * here like any other wrong token, and the platform token is refused on the distribution
 * interface because it is not a well-formed channel key. A wrong token counts against the
 * client's address like a wrong channel key, so the token cannot be guessed at line speed.
 */
export function platformAuth(deps: AppDeps): RequestHandler {
  const countFailure = failedAuthentications(deps);
  return async (req, _res, next) => {
    const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(req.get('authorization') ?? '');
    const given = match?.[1];
    if (!given || !timingSafeEqual(sha256(given), deps.secrets.platformTokenHash)) {
      await countFailure(req);
      throw new ProblemError('platform_token_invalid', {
        headers: { 'WWW-Authenticate': given ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE },
      });
    }
    next();
  };
}
