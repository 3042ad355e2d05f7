import type { RequestHandler, Response } from 'express';
import { addToWindow } from '../../db/counters.ts';
import { callerOf, type AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';

export type Charge = (units: number) => Promise<void>;

export function setRateLimitHeaders(res: Response, limit: number, count: number, resetSeconds: number): void {
  const remaining = Math.max(0, limit - count);
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(remaining));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
  // draft-ietf-httpapi-ratelimit-headers structured fields, provisional in the contract.
  res.setHeader('RateLimit-Policy', `"per-minute";q=${limit};w=60`);
  res.setHeader('RateLimit', `"per-minute";r=${remaining};t=${resetSeconds}`);
}

/**
 * Counts every authenticated request against the channel's per-minute limit in Postgres, so the
 * limit holds across API processes. One unit up front; an operation whose cost is known only
 * after its work (an availability page) adds the rest through `chargeOf(res)`.
 */
export function rateLimit(deps: Pick<AppDeps, 'orm' | 'clock'>): RequestHandler {
  return async (_req, res, next) => {
    const charge = channelCharge(deps, res, callerOf(res).channel);
    res.locals.charge = charge;
    await charge(1);
    next();
  };
}

/**
 * Charges `units` to the channel's window and answers the RateLimit headers; over the limit it
 * refuses with `rate_limited`. Also used for a suspended channel's refusal, which counts too.
 */
export function channelCharge({ orm, clock }: Pick<AppDeps, 'orm' | 'clock'>, res: Response, channel: { id: string; rateLimitPerMinute: number }): Charge {
  const limit = channel.rateLimitPerMinute;
  return async (units) => {
    const { count, resetSeconds } = await addToWindow(orm.em.fork(), `channel:${channel.id}`, units, clock.now());
    setRateLimitHeaders(res, limit, count, resetSeconds);
    if (count > limit) throw new ProblemError('rate_limited', { headers: { 'Retry-After': String(resetSeconds) } });
  };
}

export function chargeOf(res: Response): Charge {
  return res.locals.charge as Charge;
}
