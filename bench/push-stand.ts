// The stand `npm run bench:push` and `npm run bench:push-pair` measure on: an HTTPS receiver that
// verifies what it gets, a scratch database, a file-backed Temporal dev server, the real API in
// this process, and worker processes as children (so their CPU is their own), with the drains
// both benches run: the naive baseline's, an empty workflow's, and the service's pipeline's.
import type { ChildProcess } from 'node:child_process';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChannel } from '../admin/channels.ts';
import { issueKey } from '../admin/keys.ts';
import { createApp } from '../api/app.ts';
import { listen } from '../api/server.ts';
import { loadConfig } from '../app/config.ts';
import { openDatabase } from '../db/orm.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { systemClock } from '../domain/clock.ts';
import { startDevServer } from '../infra/embedded-temporal.ts';
import { createLogger } from '../infra/logger.ts';
import { loadSecrets } from '../infra/secrets.ts';
import { connectTemporalClient } from '../infra/temporal.ts';
import { loadTlsMaterial } from '../infra/tls.ts';
import { serviceDeps } from '../services/deps.ts';
import { workflowIds } from '../workflows/ids.ts';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';
import { benchClient, benchProperty, putBenchPlace } from './platform-client.ts';
import {
  arrivalsOf,
  eachConcurrently,
  cpuPerDelivery,
  cpuReading,
  measureDrain,
  pidWith,
  round,
  startChild,
  startReceiver,
  stopChild,
} from './push-support.ts';
import { firstAttemptShares, untilNoWorkerPolls } from './push-workers.ts';

const PROPERTIES = 16;
export const TASK_QUEUE = 'bench-push';
const PLATFORM_TOKEN = 'bench-platform-token-0123456789abcdefghijklmnop';
const SERVER_SECRET = 'bench-server-secret-0123456789abcdefghij';
/** Workflows the client starts at a time in the baselines. */
const CLIENT_STARTS = 32;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export type PushStand = Awaited<ReturnType<typeof openPushStand>>;
export type Drain = Awaited<ReturnType<typeof measureDrain>>;

export async function openPushStand() {
  const receiver = await startReceiver();
  const scratch = await createScratchDatabase(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    'svc_bench_push',
  );
  const dataDir = path.join(os.tmpdir(), `svc-bench-push-${process.pid}`);
  const temporal = await startDevServer({ searchAttributes: SEARCH_ATTRIBUTES, dataDir });
  const serverPid = pidWith(path.join(dataDir, 'temporal.sqlite'));
  const client = await connectTemporalClient(temporal.address, 'default');
  const orm = await openDatabase(scratch.url);
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    SERVER_SECRET,
    PLATFORM_TOKEN,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    WEBHOOK_ALLOW_LOCAL: 'true',
    WEBHOOK_CA_FILE: receiver.caFile,
    // The worker runs beside whatever else serves metrics on this machine: a port of its own choosing.
    METRICS_PORT: '0',
    TEMPORAL_METRICS_PORT: 'off',
  };
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const deps = serviceDeps({
    orm,
    temporal: client.client,
    config,
    clock: systemClock,
    log: createLogger('silent'),
    secrets: await loadSecrets(config),
  });
  const tls = await loadTlsMaterial({ dataDir: config.dataDir });
  const server = await listen(createApp(deps, { publicOrigin: 'https://bench.test' }), {
    host: '127.0.0.1',
    port: 0,
    plainPort: null,
    tls,
    publicOrigin: 'https://bench.test',
  });
  const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 8 });
  const children: ChildProcess[] = [];
  const { call, put } = benchClient(server.url, agent, PLATFORM_TOKEN);

  let writes = 0;
  /** One platform write: the next property's units flip, so each write is one `property.updated`. */
  async function write(): Promise<void> {
    const i = writes++;
    await put(`/properties/bench-p${i % PROPERTIES}`, benchProperty(2 - (Math.floor(i / PROPERTIES) % 2)));
  }

  let workers: ChildProcess[] = [];
  /**
   * `count` worker processes (`scripts/worker.ts`), started side by side. Each is counted from its
   * spawn: its dispatcher delivers before it says it is running (a drain's first CPU reading must see it).
   */
  async function startWorkers(count = 1): Promise<void> {
    const spawned = (worker: ChildProcess) => {
      workers.push(worker);
      children.push(worker);
    };
    await Promise.all(
      Array.from({ length: count }, () =>
        startChild(
          path.resolve(here('../scripts/worker.ts')),
          [],
          { ...env, DATABASE_URL: scratch.url, TEMPORAL_ADDRESS: temporal.address },
          'worker running',
          spawned,
        ),
      ),
    );
  }
  async function stopWorkers(): Promise<void> {
    for (const worker of workers) await stopChild(worker);
    workers = [];
  }

  /**
   * The pipeline's drain of `count` deliveries to `paths` by `workerCount` workers: the writes are
   * made while no worker runs, then the workers start and drain them, so the rate is the
   * pipeline's, not the writer's. The workers start once the stopped ones no longer count as
   * polling, so a lone worker's deliveries start eagerly, as in a deployment with one worker.
   */
  async function pipelineDrain(paths: string[], count: number, writesNeeded: number, workerCount = 1) {
    await stopWorkers();
    await untilNoWorkerPolls(client.client, TASK_QUEUE);
    const writing = performance.now();
    await eachConcurrently(Array.from({ length: writesNeeded }), 4, () => write());
    const since = performance.now();
    const drain = await measureDrain(receiver, {
      filter: (a) => a.at > since && paths.includes(a.path),
      count,
      pids: () => ({ workers: workers.map((w) => w.pid!), server: serverPid }),
      timeoutMs: 600_000,
      start: () => startWorkers(workerCount),
    });
    return { drain, since, writing };
  }

  /** The 1-endpoint drain of `count` by `workerCount` workers, with each worker's share of the first attempts. */
  async function endpointDrain(endpointId: string, count: number, workerCount: number) {
    const { drain, since } = await pipelineDrain(['/e1'], count, count, workerCount);
    const ids = receiver.arrivals
      .filter((a) => a.at > since && a.path === '/e1')
      .map((a) => workflowIds.webhookDelivery(endpointId, a.id));
    const pids = workers.map((w) => w.pid!);
    return { ...drain, ...(await firstAttemptShares(client.client, ids, pids)) };
  }

  /** The baselines' worker: `naiveDelivery` (one activity POSTing) and `emptyWorkflow`. */
  async function startBaselineWorker(): Promise<ChildProcess> {
    const worker = await startChild(
      here('./push-naive-worker.ts'),
      [temporal.address, 'bench-naive', `${receiver.origin}/naive`, receiver.caFile],
      {},
      'ready',
    );
    children.push(worker);
    return worker;
  }
  let baselineRuns = 0;
  const startBaseline = (type: string, prefix: string, n: number) =>
    eachConcurrently(Array.from({ length: n }), CLIENT_STARTS, async (_, i) => {
      await client.client.workflow.start(type, {
        workflowId: `${prefix}-${i}`,
        taskQueue: 'bench-naive',
        args: [`${prefix}-${i}`],
      });
    });

  /** (a) The naive baseline: the drain of `count` workflows, each POSTing once from an activity. */
  async function naiveDrain(count: number): Promise<Drain> {
    const worker = await startBaselineWorker();
    const run = `naive-${(baselineRuns += 1)}`;
    await startBaseline('naiveDelivery', `${run}-warm`, 50);
    await arrivalsOf(receiver, (a) => a.id.startsWith(`${run}-warm-`), 50, 120_000);
    const naive = await measureDrain(receiver, {
      filter: (a) => a.id.startsWith(`${run}-run-`),
      count,
      pids: () => ({ workers: [worker.pid!], server: serverPid }),
      timeoutMs: 600_000,
      start: () => startBaseline('naiveDelivery', `${run}-run`, count),
    });
    await stopChild(worker);
    return naive;
  }

  /**
   * An empty workflow the client starts, `count` of them: workflows completed per second from the
   * first start to the last completion (counted every 100 ms), and the CPU per workflow over that span.
   */
  async function emptyDrain(count: number): Promise<Drain> {
    const worker = await startBaselineWorker();
    const run = `empty-${(baselineRuns += 1)}`;
    const completed = async () =>
      (await client.client.workflow.count(`WorkflowType = 'emptyWorkflow' AND ExecutionStatus = 'Completed'`)).count;
    const until = async (n: number) => {
      const deadline = Date.now() + 600_000;
      while ((await completed()) < n) {
        if (Date.now() > deadline) throw new Error(`fewer than ${n} empty workflows completed in 600 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const before = await completed();
    await startBaseline('emptyWorkflow', `${run}-warm`, 50);
    await until(before + 50);
    const read = () => cpuReading({ workers: [worker.pid!], server: serverPid });
    const first = read();
    await startBaseline('emptyWorkflow', `${run}-run`, count);
    await until(before + 50 + count);
    const last = read();
    await stopChild(worker);
    return {
      deliveries: count,
      perSecond: round(count / ((last.at - first.at) / 1000)),
      ...cpuPerDelivery(first, last, count),
    };
  }

  /** A channel with one endpoint (`/e1`, verified) and its published properties; the worker warmed up. */
  async function openChannel() {
    await createChannel(deps, { name: 'bench-channel', rateLimit: 1_000_000 });
    const key = (await issueKey(deps, { channel: 'bench-channel', scopes: 'read:catalog,manage:webhooks' })).key;
    const addEndpoint = async (route: string) => {
      const created = await call('POST', '/api/v1/distribution/webhooks', key, {
        url: `${receiver.origin}${route}`,
        events: ['property.*'],
      });
      if (created.status !== 201) throw new Error(`webhook creation answered ${created.status}`);
      receiver.verifyWith(route, String(created.json.secret));
      return String(created.json.id);
    };
    const e1 = await addEndpoint('/e1');
    await putBenchPlace(put);
    for (let k = 0; k < PROPERTIES; k += 1) {
      await put(`/properties/bench-p${k}`, benchProperty(1));
      await put(`/properties/bench-p${k}/distribution`, { channels: ['bench-channel'] });
    }
    await startWorkers();
    await arrivalsOf(receiver, (a) => a.path === '/e1', PROPERTIES, 120_000); // warm: bundle loaded, dispatcher running
    return { e1, addEndpoint };
  }

  async function close(): Promise<void> {
    for (const child of children) await stopChild(child);
    await server.close();
    agent.destroy();
    await client.close();
    await orm.close(true);
    await temporal.stop();
    await scratch.drop();
    await receiver.close();
  }

  return {
    receiver,
    orm,
    write,
    pipelineDrain,
    endpointDrain,
    naiveDrain,
    emptyDrain,
    openChannel,
    close,
  };
}
