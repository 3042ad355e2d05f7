import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { checkDeliveries, type DeliveryFindings, type RegisteredEndpoint } from './check.ts';
import { ownsConnection, startChaosReceiver } from './receiver.ts';
import { freePort, sleep, startChaosPostgres, startChaosTemporal, type StopMode } from './servers.ts';
import {
  apiClient,
  chaosServiceEnvironment,
  startServiceProcess,
  waitForLive,
  waitForLog,
  type ApiClient,
  type ServiceProcess,
} from './service.ts';
import { platformWrites } from './writes.ts';
import { waitUntil, channelKey, allEvents, pollingIdentities } from './observe.ts';

export interface ChaosOptions {
  /** Platform changes written, alternately through each API process. */
  changes: number;
  /** Properties the changes spread over (every tenth change is a location change). */
  properties: number;
  /** 2 or 3 endpoints: `*`, `property.*`, and `location.updated`+`owner.updated`. */
  endpoints: number;
  /** Kill rounds: each SIGKILLs a worker with attempts in flight, restarts Temporal and PostgreSQL, starts a replacement worker. */
  rounds: number;
  /** Concurrent writers. */
  concurrency: number;
  /** How long the receiver holds each request before answering 204, so attempts are in flight. */
  attemptDelayMs: number;
  /** The whole run's bound; the settling wait ends with it. */
  deadlineMs: number;
  /** Keep the run's directory (logs, data) for a look afterwards. */
  keep: boolean;
  log: (line: string) => void;
}

export interface ChaosReport {
  options: Omit<ChaosOptions, 'log' | 'keep'>;
  events: number;
  deliveries: DeliveryFindings;
  kills: { worker: string; inFlight: boolean }[];
  restarts: { temporal: StopMode[]; postgres: StopMode[] };
  /** Processes that ended without being killed by the run (each should ride every restart out). */
  crashed: string[];
  /** Requests received per worker (by the connection that carried them). */
  deliveredBy: Record<string, number>;
  /** Workers still running that the restarted Temporal server does not list as polling. */
  silentAfterRestart: string[];
  writeRetries: number;
  seconds: { total: number; settle: number };
  dir: string;
}

const SERVER_SECRET = 'chaos-server-secret-0123456789abcdefghijklmn';
const PLATFORM_TOKEN = 'svc_platform_chaos-token-0123456789abcdefghijklmn';
const ENDPOINTS: RegisteredEndpoint[] = [
  { name: 'all', events: ['*'] },
  { name: 'properties', events: ['property.*'] },
  { name: 'places', events: ['location.updated', 'owner.updated'] },
];

/** Runs the service as separate processes through worker kills and server restarts; reports what arrived. */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const deadline = started + options.deadlineMs;
  const { log } = options;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-chaos-'));
  // Run as root, PostgreSQL runs as a `postgres` system user, which must traverse this directory.
  await chmod(dir, 0o755);
  const cleanups: (() => Promise<unknown>)[] = [];
  const processes: ServiceProcess[] = [];
  const killed = new Set<ServiceProcess>();
  const clients: ApiClient[] = [];
  const allWorkers: ServiceProcess[] = [];
  try {
    const pg = await startChaosPostgres(path.join(dir, 'pg'), log);
    cleanups.push(() => pg.close());
    const temporal = await startChaosTemporal(path.join(dir, 'temporal'), log);
    cleanups.push(() => temporal.close());
    const receiver = await startChaosReceiver(dir);
    cleanups.push(() => receiver.close());
    receiver.setSenders(() => allWorkers.filter((w) => !w.exited()));
    log(`servers: postgres on ${pg.port}, temporal on ${temporal.address}, receiver on ${receiver.port}`);

    // One certificate for every API process, as behind a load balancer.
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 7 * 24 * 3600 * 1000),
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    await writeFile(path.join(dir, 'api.crt'), pems.cert);
    await writeFile(path.join(dir, 'api.key'), pems.private);
    const env = chaosServiceEnvironment({
      dir,
      databaseUrl: pg.url,
      temporalAddress: temporal.address,
      taskQueue: 'chaos',
      serverSecret: SERVER_SECRET,
      platformToken: PLATFORM_TOKEN,
      receiverCaFile: receiver.caFile,
    });
    const track = (p: ServiceProcess) => {
      processes.push(p);
      return p;
    };
    const startApi = async (name: string): Promise<ApiClient> => {
      const port = await freePort();
      const p = track(startServiceProcess(name, 'scripts/api.ts', { ...env(name), PORT: String(port) }, dir));
      const client = apiClient(`https://127.0.0.1:${port}`, pems.cert);
      clients.push(client);
      await waitForLive(p, client, 120_000);
      return client;
    };
    const startWorker = async (name: string): Promise<ServiceProcess> => {
      const p = track(startServiceProcess(name, 'scripts/worker.ts', env(name), dir));
      allWorkers.push(p);
      await waitForLog(p, 'worker running', 120_000);
      return p;
    };

    // The first API migrates the database; the others start beside it.
    const apis = [await startApi('api-1')];
    const [second, ...workers] = await Promise.all([
      startApi('api-2'),
      startWorker('worker-1'),
      startWorker('worker-2'),
    ]);
    apis.push(second);
    log('processes: 2 API, 2 workers running');

    const key = await channelKey(env('admin'), 'chaos-channel');
    const endpoints = ENDPOINTS.slice(0, options.endpoints);
    for (const [i, endpoint] of endpoints.entries()) {
      const created = await apis[i % apis.length]!.call('POST', '/api/v1/distribution/webhooks', key, {
        url: `${receiver.baseUrl}${endpoint.name}`,
        events: endpoint.events,
      });
      if (created.status !== 201)
        throw new Error(`registering endpoint ${endpoint.name} answered ${created.status}: ${created.text}`);
      receiver.secrets.set(endpoint.name, (created.json as { secret: string }).secret);
    }
    const writes = platformWrites({
      apis,
      token: PLATFORM_TOKEN,
      channel: 'chaos-channel',
      properties: options.properties,
      concurrency: options.concurrency,
      deadline,
    });
    await writes.setUp();
    log(`setup: ${endpoints.length} endpoints, ${options.properties} properties distributed`);

    receiver.setDelay(options.attemptDelayMs);
    const kills: ChaosReport['kills'] = [];
    const restarts: ChaosReport['restarts'] = { temporal: [], postgres: [] };
    const chunk = Math.ceil(options.changes / (2 * options.rounds + 1));
    let next = 0;
    const writeChunk = () => {
      const from = next;
      next = Math.min(options.changes, next + chunk);
      return writes.changes(from, next);
    };
    for (let round = 0; round < options.rounds; round += 1) {
      // A chunk of changes while a worker with attempts in flight is killed.
      const writing = writeChunk();
      // The victim is a worker seen holding an attempt open at the receiver (the task queue
      // decides which worker makes an attempt, so it cannot be chosen); failing that, the round's own.
      let victim: ServiceProcess | undefined;
      const inFlight = await waitUntil(
        () => {
          victim = workers.find((w) => ownsConnection(w.pid, receiver.inFlightPorts(), receiver.port));
          return victim !== undefined;
        },
        Math.min(60_000, deadline - Date.now()),
      );
      victim ??= workers[round % workers.length]!;
      const slot = workers.indexOf(victim);
      await victim.kill('SIGKILL');
      killed.add(victim);
      kills.push({ worker: victim.name, inFlight });
      log(
        `round ${round + 1}: ${victim.name} killed (SIGKILL) ${inFlight ? 'with attempts in flight' : 'without an attempt seen in flight'}`,
      );
      await writing;
      // Another chunk while Temporal and PostgreSQL go down and come back.
      const writingThrough = writeChunk();
      const temporalMode: StopMode = round % 2 === 0 ? 'kill' : 'clean';
      await temporal.restart(temporalMode);
      restarts.temporal.push(temporalMode);
      log(`round ${round + 1}: temporal restarted (${temporalMode})`);
      const postgresMode: StopMode = round % 2 === 0 ? 'clean' : 'kill';
      await pg.restart(postgresMode);
      restarts.postgres.push(postgresMode);
      log(`round ${round + 1}: postgres restarted (${postgresMode})`);
      workers[slot] = await startWorker(`worker-${workers.length + round + 1}`);
      await writingThrough;
      log(`round ${round + 1}: replacement worker running; ${next} of ${options.changes} changes written`);
    }
    await writeChunk();
    while (next < options.changes) await writeChunk();
    receiver.setDelay(0);
    log(`writes: ${options.changes} changes accepted (${writes.retries()} retries)`);

    const events = await allEvents(apis[0]!, key, deadline);
    const settleFrom = Date.now();
    let findings = checkDeliveries(events, endpoints, receiver.arrivals);
    while (findings.lost > 0 && Date.now() < deadline) {
      await sleep(1000);
      findings = checkDeliveries(events, endpoints, receiver.arrivals);
    }
    log(`settled: ${findings.received} of ${findings.expected} pairs received`);
    const deliveredBy: Record<string, number> = {};
    for (const arrival of receiver.arrivals) deliveredBy[arrival.by] = (deliveredBy[arrival.by] ?? 0) + 1;
    // Every worker still running, those that stayed up through the restarts included, must be
    // polling the restarted server by itself: one that never reconnected would be hidden by the
    // others. (Which worker delivers is no sign: the others can take every attempt.) The server
    // keeps its pollers in memory, so a worker listed now has polled since the last restart.
    const survivors = allWorkers.filter((w) => !killed.has(w));
    const pollers = await pollingIdentities(temporal.address, 'chaos');
    const silentAfterRestart = survivors
      .filter((w) => !pollers.has(`${w.pid}@${os.hostname()}`))
      .map((w) => `${w.name} not polling after the restarts`);
    const crashed = processes
      .filter((p) => p.exited() && !killed.has(p))
      .map((p) => `${p.name}:\n${p.log().slice(-2000)}`);
    return {
      options: {
        changes: options.changes,
        properties: options.properties,
        endpoints: options.endpoints,
        rounds: options.rounds,
        concurrency: options.concurrency,
        attemptDelayMs: options.attemptDelayMs,
        deadlineMs: options.deadlineMs,
      },
      events: events.length,
      deliveries: findings,
      kills,
      restarts,
      crashed,
      deliveredBy,
      silentAfterRestart,
      writeRetries: writes.retries(),
      seconds: {
        total: Math.round((Date.now() - started) / 100) / 10,
        settle: Math.round((Date.now() - settleFrom) / 100) / 10,
      },
      dir,
    };
  } finally {
    const failures: unknown[] = [];
    for (const client of clients) client.close();
    // The service's processes first, together (each SIGTERM, SIGKILL after 10 s), then the servers.
    await Promise.all(processes.map((p) => p.kill('SIGTERM'))).catch((error: unknown) => failures.push(error));
    while (cleanups.length > 0) await cleanups.pop()!().catch((error: unknown) => failures.push(error));
    if (!options.keep) await rm(dir, { recursive: true, force: true });
    if (failures.length > 0) log(`cleanup: ${failures.map(String).join('; ')}`);
  }
}
