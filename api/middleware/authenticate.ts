import type { Request, RequestHandler, Response } from 'express';
import { parseApiKey } from '../../domain/api-keys.ts';
import type { ProblemCode } from '../../domain/problems.ts';
import { findKeyAndCount, hashApiKey, keyState } from '../../db/api-keys.ts';
import type { AppDeps, Caller } from '../context.ts';
import type { Operation } from '../operations.ts';
import { ProblemError } from '../../domain/problems.ts';
import { failedAuthenticationLockout, failedAuthentications, tooManyFailedAuthentications } from './auth-failures.ts';
import { KeyCache } from './key-cache.ts';
import { enforceLimit, setRateLimitHeaders } from './rate-limit.ts';

const CHALLENGE = 'Bearer realm="distribution"';

/** Keys remembered per API process: far more than the channels of a deployment hold live keys. */
const KEY_CACHE_CAPACITY = 10_000;

function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  const match = header ? /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Resolves the bearer key to a channel and counts the request against the channel's per-minute
 * limit, refusing exactly as the contract's table says. A 401 also counts against the client's
 * address; past the limit it becomes 429 for the rest of the minute. Expired and revoked are told
 * apart only for a key whose secret matched. A suspended channel's `partner_suspended` is charged
 * to its rate limit with the RateLimit headers.
 *
 * One statement finds the key as it is now and counts the request (db/api-keys.ts). Every request
 * waits for it before its work, except one kind: a read (GET, HEAD) of an operation marked
 * `readsCallerIdentityOnly`, whose key this process found usable before (KeyCache). That read runs
 * beside the check, one round trip less, with the channel's id and the key's scopes, which never
 * change; the answer waits for the check (`settleCharge`) before anything is written, so a key
 * revoked meanwhile, a suspended channel or a spent limit is still refused, and nothing else is
 * said. A read writes nothing, so reading for a request that turns out refused changes nothing.
 */
export function authenticate(deps: AppDeps): (operation: Pick<Operation, 'readsCallerIdentityOnly'>) => RequestHandler {
  const { orm, clock, config } = deps;
  const cache = new KeyCache(KEY_CACHE_CAPACITY);
  const countFailure = failedAuthentications(deps);
  const lockout = failedAuthenticationLockout(deps);
  async function refuse(req: Request, code: ProblemCode, description: string | null): Promise<never> {
    await countFailure(req);
    const challenge =
      description === null ? CHALLENGE : `${CHALLENGE}, error="invalid_token", error_description="${description}"`;
    throw new ProblemError(code, { headers: { 'WWW-Authenticate': challenge } });
  }

  /** A refused key names no caller: a read that started beside the check had the remembered one. */
  function forget(res: Response, secretHash: string): void {
    cache.delete(secretHash);
    delete res.locals.caller;
  }

  /** The key as it is now, the request counted; sets the caller and the RateLimit headers, or refuses. */
  async function check(req: Request, res: Response, secretHash: string): Promise<void> {
    const now = clock.now();
    const found = await findKeyAndCount(orm.em, secretHash, now);
    if (!found || found.key.environment !== config.environment) {
      forget(res, secretHash);
      return refuse(req, 'invalid_api_key', 'The key is malformed or unknown');
    }
    const { key, count, resetSeconds } = found;
    const state = keyState(key, now);
    if (state !== 'usable' || count === null) {
      forget(res, secretHash);
      return state === 'revoked'
        ? refuse(req, 'api_key_revoked', 'The key was revoked')
        : refuse(req, 'api_key_expired', 'The key expired');
    }
    const caller: Caller = { channel: key.channel, key };
    res.locals.caller = caller;
    enforceLimit(res, key.channel.rateLimitPerMinute, count, resetSeconds);
    // An authenticated answer like any other: it was counted against the channel's limit and says so.
    if (key.channel.status !== 'active') {
      cache.delete(secretHash);
      throw new ProblemError('partner_suspended');
    }
    cache.set(secretHash, key);
  }

  return (operation) => async (req, res, next) => {
    const secret = bearerToken(req);
    const parsed = secret === undefined ? undefined : parseApiKey(secret);
    const secretHash = parsed?.ok && parsed.environment === config.environment ? hashApiKey(secret!) : undefined;
    const known = secretHash === undefined ? undefined : cache.get(secretHash);
    // From an address locked out for failed authentications, only a key this process found usable
    // goes on to its check (a shared egress address must not lock a channel out); anything else is
    // 429 before any lookup.
    const locked = known ? null : lockout(req);
    if (locked !== null) throw tooManyFailedAuthentications(locked);
    if (!secret) return refuse(req, 'missing_api_key', null);
    if (!parsed!.ok) return refuse(req, 'invalid_api_key', 'The key is malformed or unknown');
    if (secretHash === undefined)
      return refuse(req, 'api_key_wrong_environment', `This deployment serves the ${config.environment} environment`);
    const checked = check(req, res, secretHash);
    res.locals.charged = checked;
    if (known && operation.readsCallerIdentityOnly && (req.method === 'GET' || req.method === 'HEAD')) {
      checked.catch(() => undefined); // awaited by settleCharge; not an unhandled rejection meanwhile
      res.locals.caller = { channel: known.channel, key: known } satisfies Caller;
      next();
      return;
    }
    await checked;
    next();
  };
}

/**
 * For answers given before authentication (404 of an unknown path, 405 of a known one): a request
 * that carries a usable key is an authenticated request all the same, so it is counted against
 * the channel's limit and says so in the RateLimit headers. Nothing else changes: the answer stays
 * 404 or 405 (also past the limit), and an absent, malformed or unusable key is not a failed
 * authentication, since nothing here asked for one.
 */
export function countUsableKey({ orm, clock, config }: AppDeps): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const secret = bearerToken(req);
    const parsed = secret === undefined ? null : parseApiKey(secret);
    if (!secret || !parsed?.ok || parsed.environment !== config.environment) return;
    const found = await findKeyAndCount(orm.em, hashApiKey(secret), clock.now());
    if (!found || found.count === null || found.key.environment !== config.environment) return;
    setRateLimitHeaders(res, found.key.channel.rateLimitPerMinute, found.count, found.resetSeconds);
  };
}
