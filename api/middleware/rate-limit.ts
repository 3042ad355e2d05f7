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
export function rateLimit({ orm, clock }: AppDeps): RequestHandler {
  return async (_req, res, next) => {
    const { channel } = callerOf(res);
    const limit = channel.rateLimitPerMinute;
    const charge: Charge = async (units) => {
      const now = clock.now();
      const { count, windowEnd } = await addToWindow(orm.em.fork(), `channel:${channel.id}`, units, now);
      const resetSeconds = Math.max(1, Math.ceil((windowEnd.getTime() - now.getTime()) / 1000));
      setRateLimitHeaders(res, limit, count, resetSeconds);
      if (count > limit) throw new ProblemError('rate_limited', { headers: { 'Retry-After': String(resetSeconds) } });
    };
    res.locals.charge = charge;
    await charge(1);
    next();
  };
}

export function chargeOf(res: Response): Charge {
  return res.locals.charge as Charge;
}
