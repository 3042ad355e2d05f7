import type { Request } from 'express';
import { addToWindow } from '../../db/counters.ts';
import type { AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';
import { clientOf } from './client-address.ts';

/**
 * Counts one failed authentication against the client's address (both interfaces share the
 * count); past AUTH_FAILURE_LIMIT in the minute it throws 429 for the rest of the minute instead
 * of letting the caller learn anything more from the refusal.
 */
export function failedAuthentications({ orm, clock, config }: Pick<AppDeps, 'orm' | 'clock' | 'config'>): (req: Request) => Promise<void> {
  return async (req) => {
    const now = clock.now();
    const { count, windowEnd } = await addToWindow(orm.em.fork(), `auth-fail:${clientOf(req)}`, 1, now);
    if (count > config.authFailureLimit) {
      const retryAfter = Math.max(1, Math.ceil((windowEnd.getTime() - now.getTime()) / 1000));
      throw new ProblemError('too_many_failed_authentications', { headers: { 'Retry-After': String(retryAfter) } });
    }
  };
}
