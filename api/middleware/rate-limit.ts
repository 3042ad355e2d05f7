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
 *
 * A read (GET, HEAD) does not wait for its count: the count and the read's own query go to the
 * database side by side, one round trip less per read, and the answer waits for the count
 * (`settleCharge`) before anything is written, so a read over the limit is still answered 429
 * (and nothing else) with its RateLimit headers. A read writes nothing, so reading for a request
 * that turns out refused changes nothing. Other methods are counted before their work starts.
 */
export function rateLimit(deps: Pick<AppDeps, 'orm' | 'clock'>): RequestHandler {
  return async (req, res, next) => {
    const charge = channelCharge(deps, res, callerOf(res).channel);
    const first = charge(1);
    res.locals.charged = first;
    // Extra units (`chargeOf`) are counted after the first, so the last headers set are the latest count.
    res.locals.charge = (async (units) => {
      await first;
      await charge(units);
    }) as Charge;
    if (req.method === 'GET' || req.method === 'HEAD') {
      first.catch(() => undefined); // awaited by settleCharge; not an unhandled rejection meanwhile
      next();
      return;
    }
    await first;
    next();
  };
}

/** Waits for the request's first unit to be counted; throws its `rate_limited` when over the limit. */
export async function settleCharge(res: Response): Promise<void> {
  await (res.locals.charged as Promise<void> | undefined);
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
