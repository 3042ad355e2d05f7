import type { Request, RequestHandler, Response } from 'express';
import { parseApiKey } from '../../domain/api-keys.ts';
import type { ProblemCode } from '../../domain/problems.ts';
import { findKeyBySecret, keyState } from '../../db/api-keys.ts';
import type { AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';
import { failedAuthentications } from './auth-failures.ts';
import { channelCharge } from './rate-limit.ts';

const CHALLENGE = 'Bearer realm="distribution"';

function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  const match = header ? /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Resolves the bearer key to a channel, refusing exactly as the contract's table says. A 401
 * also counts against the client's address; past the limit it becomes 429 for the rest of the
 * minute. Expired and revoked are told apart only for a key whose secret matched. A suspended
 * channel's `partner_suspended` is charged to its rate limit with the RateLimit headers.
 */
export function authenticate(deps: AppDeps): RequestHandler {
  const { orm, clock, config } = deps;
  const countFailure = failedAuthentications(deps);
  async function refuse(req: Request, code: ProblemCode, description: string | null): Promise<never> {
    await countFailure(req);
    const challenge = description === null ? CHALLENGE : `${CHALLENGE}, error="invalid_token", error_description="${description}"`;
    throw new ProblemError(code, { headers: { 'WWW-Authenticate': challenge } });
  }

  return async (req: Request, res: Response, next) => {
    const key = bearerToken(req);
    if (!key) return refuse(req, 'missing_api_key', null);
    const parsed = parseApiKey(key);
    if (!parsed.ok) return refuse(req, 'invalid_api_key', 'The key is malformed or unknown');
    if (parsed.environment !== config.environment) return refuse(req, 'api_key_wrong_environment', `This deployment serves the ${config.environment} environment`);
    const found = await findKeyBySecret(orm.em.fork(), key);
    if (!found || found.environment !== config.environment) return refuse(req, 'invalid_api_key', 'The key is malformed or unknown');
    const state = keyState(found, clock.now());
    if (state === 'revoked') return refuse(req, 'api_key_revoked', 'The key was revoked');
    if (state === 'expired') return refuse(req, 'api_key_expired', 'The key expired');
    if (found.channel.status !== 'active') {
      // An authenticated answer like any other: it counts against the channel's limit and says so.
      await channelCharge({ orm, clock }, res, found.channel)(1);
      throw new ProblemError('partner_suspended');
    }
    res.locals.caller = { channel: found.channel, key: found };
    next();
  };
}
