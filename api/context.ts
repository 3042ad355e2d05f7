import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Response } from 'express';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import type { ServiceSecrets } from '../infra/secrets.ts';
import type { ServiceConfig } from './config.ts';
import type { ApiKey, Channel } from '../db/entities/index.ts';

export interface AppDeps {
  orm: MikroORM;
  temporal: Client;
  config: ServiceConfig;
  clock: Clock;
  log: Logger;
  secrets: ServiceSecrets;
}

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
