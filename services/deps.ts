import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { ServiceConfig } from '../app/config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import type { ServiceSecrets } from '../infra/secrets.ts';
import { createWorkflowClient, type WorkflowClient } from './workflow-client.ts';

/** What every service needs: the database, the durable processes, time, the log and the secrets. */
export interface ServiceDeps {
  orm: MikroORM;
  workflows: WorkflowClient;
  config: ServiceConfig;
  clock: Clock;
  log: Logger;
  secrets: ServiceSecrets;
}

/**
 * Builds the services' dependencies around a Temporal client, given as connected or as a function
 * that connects on first use (the CLI connects only for the commands that need Temporal).
 */
export function serviceDeps(
  parts: Omit<ServiceDeps, 'workflows'> & { temporal: Client | (() => Promise<Client>) },
): ServiceDeps {
  const { temporal, ...rest } = parts;
  const connect = typeof temporal === 'function' ? temporal : () => Promise.resolve(temporal);
  return {
    ...rest,
    workflows: createWorkflowClient({
      connect,
      taskQueue: rest.config.temporal.taskQueue,
      dispatchPollSeconds: rest.config.webhooks.dispatchPollSeconds,
    }),
  };
}
