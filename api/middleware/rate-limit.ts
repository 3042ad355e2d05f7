import type { Response } from 'express';
import { addToWindow } from '../../db/counters.ts';
import { callerOf, type AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';

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
 * Answers the RateLimit headers for the channel's window at `count`; past `limit` it refuses with
 * `rate_limited`. The count lives in PostgreSQL, so the limit holds across API processes; every
 * authenticated request's first unit is counted with its key's check (authenticate.ts).
 */
export function enforceLimit(res: Response, limit: number, count: number, resetSeconds: number): void {
  setRateLimitHeaders(res, limit, count, resetSeconds);
  if (count > limit) throw new ProblemError('rate_limited', { headers: { 'Retry-After': String(resetSeconds) } });
}

/**
 * Waits for the request's key check and first unit (a read may run beside them); throws the
 * refusal when there is one: the key's, `partner_suspended` or `rate_limited`.
 */
export async function settleCharge(res: Response): Promise<void> {
  await (res.locals.charged as Promise<void> | undefined);
}

/**
 * Charges `units` more to the caller's channel, for an operation whose cost is known only after
 * its work (an availability page). Counted after the first unit, so the last headers set are the
 * latest count; past the limit it refuses with `rate_limited`.
 */
export async function chargeMore(
  { orm, clock }: Pick<AppDeps, 'orm' | 'clock'>,
  res: Response,
  units: number,
): Promise<void> {
  await settleCharge(res);
  const { channel } = callerOf(res);
  // Beside the first unit, for the sandbox's request log (sandbox-request-log.ts).
  res.locals.unitsAfterFirst = ((res.locals.unitsAfterFirst as number | undefined) ?? 0) + units;
  const { count, resetSeconds } = await addToWindow(orm.em.fork(), `channel:${channel.id}`, units, clock.now());
  enforceLimit(res, channel.rateLimitPerMinute, count, resetSeconds);
}
