import type { Request } from 'express';
import { addToWindow } from '../../db/counters.ts';
import type { AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';
import { clientOf } from './client-address.ts';

/**
 * Counts one failed authentication against the client's address (every interface shares the
 * count). Answers null within AUTH_FAILURE_LIMIT per minute, else the seconds left in the minute:
 * past the limit the caller answers 429 instead of letting it learn anything more from the refusal.
 */
export function failedAuthenticationCounter({ orm, clock, config }: Pick<AppDeps, 'orm' | 'clock' | 'config'>): (req: Request) => Promise<number | null> {
  return async (req) => {
    const { count, resetSeconds } = await addToWindow(orm.em.fork(), `auth-fail:${clientOf(req)}`, 1, clock.now());
    return count > config.authFailureLimit ? resetSeconds : null;
  };
}

/** The distribution and platform interfaces' form: past the limit, the problem `too_many_failed_authentications`. */
export function failedAuthentications(deps: Pick<AppDeps, 'orm' | 'clock' | 'config'>): (req: Request) => Promise<void> {
  const count = failedAuthenticationCounter(deps);
  return async (req) => {
    const retryAfter = await count(req);
    if (retryAfter !== null) throw new ProblemError('too_many_failed_authentications', { headers: { 'Retry-After': String(retryAfter) } });
  };
}
