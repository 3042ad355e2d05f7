import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { ServiceConfig } from '../app/config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import { createMailer, type Mailer, type MailerConfig } from '../infra/mailer.ts';
import type { ServiceSecrets } from '../infra/secrets.ts';
import { createWebhookSender, type WebhookSender } from '../infra/webhook-sender.ts';
import { serviceStores, type ServiceStores } from './stores/index.ts';
import { createWorkflowClient, type WorkflowClient } from './workflow-client.ts';

/**
 * What every service needs: the database (through its port in `stores` where it has one), the
 * durable processes, time, the log, the secrets, the mailer and the ping's sender.
 */
export interface ServiceDeps {
  orm: MikroORM;
  stores: ServiceStores;
  workflows: WorkflowClient;
  config: ServiceConfig;
  clock: Clock;
  log: Logger;
  secrets: ServiceSecrets;
  /** The technical contacts' notices; whoever built the deps closes it at shutdown. */
  mailer: Mailer;
  /** Signs and sends a `webhook.ping` (POST /webhooks/{id}/ping and enable). */
  pingSender: WebhookSender;
}

/**
 * The mailer made on the first message: a process that sends none (the API, most CLI commands)
 * opens no transport, and a bad SMTP setting fails that message, not the process's start.
 */
function mailerOnFirstUse(config: MailerConfig): Mailer {
  let mailer: Mailer | undefined;
  return {
    send: (mail) => (mailer ??= createMailer(config)).send(mail),
    close: () => mailer?.close(),
  };
}

/**
 * Builds the services' dependencies around a Temporal client, given as connected or as a function
 * that connects on first use (the CLI connects only for the commands that need Temporal). The
 * mailer is the caller's when given (the worker's, which its activities share).
 */
export function serviceDeps(
  parts: Omit<ServiceDeps, 'workflows' | 'stores' | 'mailer' | 'pingSender'> & {
    temporal: Client | (() => Promise<Client>);
    mailer?: Mailer;
  },
): ServiceDeps {
  const { temporal, mailer, ...rest } = parts;
  const connect = typeof temporal === 'function' ? temporal : () => Promise.resolve(temporal);
  let pingSender: WebhookSender | undefined;
  return {
    ...rest,
    stores: serviceStores(rest.orm),
    mailer: mailer ?? mailerOnFirstUse(rest.config.mail),
    // Made on the first ping: it reads the optional extra CA file once, then keeps it.
    pingSender: {
      send: (endpoint, event) =>
        (pingSender ??= createWebhookSender({
          secrets: rest.secrets,
          clock: rest.clock,
          settings: rest.config.webhooks,
          kind: 'ping',
        })).send(endpoint, event),
    },
    workflows: createWorkflowClient({
      connect,
      taskQueue: rest.config.temporal.taskQueue,
      dispatchPollSeconds: rest.config.webhooks.dispatchPollSeconds,
    }),
  };
}
