import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';

export interface ActivityDeps {
  orm: MikroORM;
  clock: Clock;
  log: Logger;
}
