import type { Response } from 'express';
import type { ApiKey } from '../db/api-keys.ts';
import type { Channel } from '../db/channels.ts';
import type { ServiceDeps } from '../services/deps.ts';

/** The API is built over the services' dependencies and adds nothing of its own. */
export type AppDeps = ServiceDeps;

export interface Caller {
  channel: Channel;
  key: ApiKey;
}

/** The authenticated caller, set by the auth middleware for every distribution operation. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('operation reached without authentication');
  return caller;
}
