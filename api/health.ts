import type { RequestHandler } from 'express';
import { pingDatabase } from '../db/orm.ts';
import type { AppDeps } from './context.ts';

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long one readiness check answers every caller: anyone may ask, but Postgres and Temporal are asked at most this often per process. */
export const READINESS_REUSE_MS = 5000;

type CheckState = 'ok' | 'unavailable';
interface Readiness {
  checkedAt: number;
  result: Promise<{ postgres: CheckState; temporal: CheckState }>;
}

/** Liveness: the process answers. No I/O, so it is cheap for anyone and never fails on a dependency. */
export const live: RequestHandler = (_req, res) => {
  res.setHeader('Cache-Control', 'no-store');
  res.json({ status: 'ok' });
};

/**
 * Readiness: 200 when Postgres and Temporal both answer, 503 naming the one that does not. One
 * check (its promise, so concurrent callers wait for the same one) answers everyone for
 * READINESS_REUSE_MS, with `checked_at` saying when it ran.
 */
export function health({ orm, workflows, clock }: AppDeps): RequestHandler {
  const check = async (work: () => Promise<unknown>): Promise<CheckState> => {
    try {
      await within(2000, work());
      return 'ok';
    } catch {
      return 'unavailable';
    }
  };
  const run = async () => {
    const [postgres, temporal] = await Promise.all([check(() => pingDatabase(orm)), check(() => workflows.ping())]);
    return { postgres, temporal };
  };
  let last: Readiness | undefined;
  return async (_req, res) => {
    const now = clock.now().getTime();
    if (!last || now < last.checkedAt || now - last.checkedAt >= READINESS_REUSE_MS)
      last = { checkedAt: now, result: run() };
    const current = last;
    const checks = await current.result;
    const ok = checks.postgres === 'ok' && checks.temporal === 'ok';
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'unavailable', checks, checked_at: new Date(current.checkedAt).toISOString() });
  };
}
