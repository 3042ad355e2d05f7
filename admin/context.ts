import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Clock } from '../domain/clock.ts';
import type { ServiceEnvironment } from '../domain/api-keys.ts';
import type { ServiceSecrets } from '../infra/secrets.ts';

export interface AdminContext {
  orm: MikroORM;
  temporal: () => Promise<Client>;
  clock: Clock;
  environment: ServiceEnvironment;
  taskQueue: string;
  secrets: ServiceSecrets;
}
