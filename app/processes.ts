import { NativeConnection } from '@temporalio/worker';
import type { ServiceConfig } from './config.ts';
import { createApp } from '../api/app.ts';
import { listen } from '../api/server.ts';
import { openDatabase } from '../db/orm.ts';
import { systemClock, type Clock } from '../domain/clock.ts';
import type { Logger } from '../infra/logger.ts';
import { createMailer } from '../infra/mailer.ts';
import { loadSecrets } from '../infra/secrets.ts';
import { createWebhookSender } from '../infra/webhook-sender.ts';
import { connectTemporalClient, temporalClient, temporalConnectionOptions } from '../infra/temporal.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { serviceDeps } from '../services/deps.ts';
import { startCatalogueReprojection } from '../services/catalogue-reprojection.ts';
import { startCertificateExpiryCatchUp } from '../services/certificate-expiry-catch-up.ts';
import { generateSandboxAtFirstStart } from '../services/sandbox-catalogue-first-start.ts';
import { ensureHorizonRollsInUse } from '../services/durable-processes.ts';
import { createWorker } from './worker.ts';
import { watchWorkerDatabase } from './observability.ts';
import { withActivityContext } from '../activities/log-context.ts';

export interface Endpoints {
  databaseUrl: string;
  temporalAddress: string;
}

/** Opens the database (migrating it), connects Temporal and serves the API over TLS. */
export async function startApiProcess(
  config: ServiceConfig,
  endpoints: Endpoints,
  log: Logger,
  clock: Clock = systemClock,
) {
  const orm = await openDatabase(endpoints.databaseUrl);
  const temporal = await connectTemporalClient(
    { ...config.temporal, address: endpoints.temporalAddress },
    config.temporal.namespace,
  );
  const tls = await loadTlsMaterial({
    certPath: config.http.tlsCert,
    keyPath: config.http.tlsKey,
    dataDir: config.dataDir,
  });
  const { publicOrigin } = config;
  const secrets = await loadSecrets(config);
  const deps = serviceDeps({ orm, temporal: temporal.client, config, clock, log, secrets });
  // With INTERNAL_PORT the platform interface has a listener of its own and the public one lacks it.
  const app = createApp(deps, { publicOrigin, surface: config.internal ? 'public' : 'all' });
  const internal = config.internal
    ? { ...config.internal, app: createApp(deps, { publicOrigin, surface: 'internal' }) }
    : undefined;
  const listening = await listen(app, {
    host: config.http.host,
    port: config.http.port,
    plainPort: config.http.plainPort,
    tls,
    publicOrigin,
    limits: config.http.limits,
    ...(internal ? { internal } : {}),
  });
  // A sandbox set to generate its catalogue does it beside serving, once across processes.
  void generateSandboxAtFirstStart(deps);
  return {
    ...listening,
    tls,
    stop: async () => {
      await listening.close();
      deps.mailer.close();
      await temporal.close();
      await orm.close();
    },
  };
}

/** Opens the database and runs the Temporal worker until stopped. */
export async function startWorkerProcess(
  config: ServiceConfig,
  endpoints: Endpoints,
  log: Logger,
  options: { prebuilt?: boolean } = {},
) {
  const orm = await openDatabase(endpoints.databaseUrl);
  const settings = { ...config.temporal, address: endpoints.temporalAddress };
  const connection = await NativeConnection.connect(temporalConnectionOptions(settings));
  // The worker's client shares its native connection: the dispatcher's delivery starts can then
  // be eager (their first workflow task answered to this worker with the start), which they are
  // while this is the only worker polling the task queue; with more, the first tasks go through
  // the queue to every worker (services/eager-start.ts).
  const client = temporalClient(connection, config.temporal.namespace);
  const secrets = await loadSecrets(config);
  const mailer = createMailer(config.mail);
  const { taskQueue } = config.temporal;
  const { workflows } = serviceDeps({ orm, temporal: client, config, clock: systemClock, log, secrets, mailer });
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    deps: {
      orm,
      clock: systemClock,
      log: withActivityContext(log),
      workflows,
      webhookSender: createWebhookSender({ secrets, clock: systemClock, settings: config.webhooks }),
      mailer,
      secrets,
      environment: config.environment,
      config,
    },
    ...(options.prebuilt !== undefined ? { prebuilt: options.prebuilt } : {}),
  });
  const running = worker.run();
  const unwatch = watchWorkerDatabase(orm, systemClock);
  // The dispatcher runs as long as the deployment; starting it here makes sure it exists.
  await workflows.wakeDispatcher();
  // Likewise one availability horizon roll per zone in use (best effort: logged, never fatal).
  await ensureHorizonRollsInUse({ orm, workflows, log });
  // And the certificate-expiry workflow of every property with an end date ahead: a catch-up pass
  // that runs beside the service (one request to Temporal here, whatever the catalogue holds).
  await startCertificateExpiryCatchUp({ workflows, log });
  // And the catalogue's re-projection when this code projects otherwise than the database's
  // records were (a field added): paced, beside the service, resumed by the next start if stopped.
  await startCatalogueReprojection({ orm, workflows, log, secrets, clock: systemClock }, config.reprojectionRate);
  // And the housekeeping schedule: retention and re-sealing, one pass a minute for the deployment
  // (best effort: a worker that cannot create it logs why, and the next start tries again).
  await workflows
    .ensureHousekeepingSchedule()
    .catch((error: unknown) => log.error('could not create the housekeeping schedule', { error: String(error) }));
  // And the owner-connect key rotation, which creates the deployment's first signing key if none
  // exists yet (the bootstrap) and adopts the configured rotation period.
  await workflows.planOwnerConnectKeys(config.ownerConnectKeyRotationDays);
  return {
    running,
    stop: async () => {
      unwatch();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch((error: unknown) => log.error('worker stopped with an error', { error: String(error) }));
      mailer.close();
      await connection.close();
      await orm.close();
    },
  };
}
