import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { addToWindow } from '../../db/counters.ts';
import {
  INTEGRATION_RATE_LIMIT_PER_MINUTE,
  parseIntegrationToken,
  type IntegrationScope,
} from '../../domain/integration-tokens.ts';
import { checkIntegrationToken, type InstallationWithOrganization } from '../../services/integration.ts';
import type { AppDeps } from '../context.ts';
import { failedAuthenticationCounter, failedAuthenticationLockout } from '../middleware/auth-failures.ts';
import { KeyCache } from '../middleware/key-cache.ts';
import { setRateLimitHeaders } from '../middleware/rate-limit.ts';
import type { Operation } from '../operations.ts';
import { IntegrationError, type IntegrationErrorCode } from './errors.ts';

const CHALLENGE = 'Bearer realm="integration"';

/** Tokens remembered per API process as accepted, so an address locked out does not lock out its good apps. */
const KNOWN_TOKENS_CAPACITY = 10_000;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');

export interface IntegrationCaller {
  installation: InstallationWithOrganization;
  scopes: IntegrationScope[];
}

/** The installation the token belongs to, set by the guards for every integration operation. */
export function integrationCallerOf(res: Response): IntegrationCaller {
  const caller = res.locals.integration as IntegrationCaller | undefined;
  if (!caller) throw new Error('integration operation reached without authentication');
  return caller;
}

function bearerToken(req: Request): string | undefined {
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(req.get('authorization') ?? '');
  return match?.[1];
}

/**
 * 401 for a missing, malformed, unknown or revoked token (a channel key, the platform token and a
 * sign-in token are all malformed here); 403 for a token of an installation that is disabled or
 * in error. A 401 counts against the client's address like one of the distribution interface.
 */
function authenticate(deps: AppDeps): RequestHandler {
  const { orm, clock, config } = deps;
  const countFailure = failedAuthenticationCounter(deps);
  const lockout = failedAuthenticationLockout(deps);
  // The SHA-256 of tokens this process last found accepted (no token is kept). Consulted only while
  // the caller's address is locked out for failed authentications: such a token still goes on to
  // its check, every other request is 429 without a lookup.
  const known = new KeyCache<true>(KNOWN_TOKENS_CAPACITY);
  async function refuse(req: Request, code: IntegrationErrorCode, sent: boolean): Promise<never> {
    const retryAfter = await countFailure(req);
    if (retryAfter !== null) throw new IntegrationError('too_many_failed_authentications', { retryAfter });
    throw new IntegrationError(code, {
      headers: { 'WWW-Authenticate': sent ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE },
    });
  }

  return async (req, res, next) => {
    const token = bearerToken(req);
    const hash = token === undefined ? undefined : tokenHash(token);
    const locked = hash !== undefined && known.get(hash) ? null : lockout(req);
    if (locked !== null) throw new IntegrationError('too_many_failed_authentications', { retryAfter: locked });
    if (!token || !hash) return refuse(req, 'missing_token', false);
    const parsed = parseIntegrationToken(token);
    if (!parsed.ok) return refuse(req, 'invalid_token', true);
    if (parsed.environment !== config.environment) return refuse(req, 'token_wrong_environment', true);
    const check = await checkIntegrationToken({ orm, clock }, token);
    if (check.outcome === 'accepted') known.set(hash, true);
    else known.delete(hash);
    if (check.outcome === 'unknown') return refuse(req, 'invalid_token', true);
    if (check.outcome === 'revoked') return refuse(req, 'token_revoked', true);
    if (check.outcome === 'disabled') throw new IntegrationError('installation_disabled');
    if (check.outcome === 'error') throw new IntegrationError('installation_error');
    res.locals.integration = { installation: check.installation, scopes: check.scopes } satisfies IntegrationCaller;
    next();
  };
}

/** Per installation, fixed one-minute windows counted in Postgres (shared by every API process). */
function rateLimit({ orm, clock }: AppDeps): RequestHandler {
  return async (_req, res, next) => {
    const { installation } = integrationCallerOf(res);
    const { count, resetSeconds } = await addToWindow(orm.em.fork(), `installation:${installation.id}`, 1, clock.now());
    setRateLimitHeaders(res, INTEGRATION_RATE_LIMIT_PER_MINUTE, count, resetSeconds);
    if (count > INTEGRATION_RATE_LIMIT_PER_MINUTE)
      throw new IntegrationError('rate_limited', { retryAfter: resetSeconds });
    next();
  };
}

function requireScopes(operation: Operation<unknown, unknown, unknown, IntegrationScope>): RequestHandler {
  return (_req, res, next) => {
    const held = integrationCallerOf(res).scopes;
    const missing = (operation.scopes ?? []).filter((scope) => !held.includes(scope));
    if (missing.length > 0) {
      throw new IntegrationError('insufficient_scope', {
        errors: { required_scopes: missing },
        headers: { 'WWW-Authenticate': `${CHALLENGE}, error="insufficient_scope", scope="${missing.join(' ')}"` },
      });
    }
    next();
  };
}

/** The integration interface's guards: token and installation, rate limit, then the operation's scopes. */
export function integrationGuards(
  deps: AppDeps,
): (operation: Operation<unknown, unknown, unknown, IntegrationScope>) => RequestHandler[] {
  const auth = authenticate(deps);
  const limit = rateLimit(deps);
  return (operation) => (operation.scopes === null ? [] : [auth, limit, requireScopes(operation)]);
}
