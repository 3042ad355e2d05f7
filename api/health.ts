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

/** 200 when Postgres and Temporal both answer, 503 naming the one that does not. */
export function health({ orm, workflows }: AppDeps): RequestHandler {
  return async (_req, res) => {
    const check = async (work: () => Promise<unknown>) => {
      try {
        await within(2000, work());
        return 'ok' as const;
      } catch {
        return 'unavailable' as const;
      }
    };
    const [postgres, temporalState] = await Promise.all([
      check(() => pingDatabase(orm)),
      check(() => workflows.ping()),
    ]);
    const ok = postgres === 'ok' && temporalState === 'ok';
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks: { postgres, temporal: temporalState } });
  };
}
