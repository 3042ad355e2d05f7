/**
 * `npm run bench:push`: the push path's throughput and latency against a naive baseline, on one
 * file-backed Temporal dev server, PostgreSQL, and an HTTPS receiver on this machine.
 *
 * (a) naive: a trivial workflow running one regular activity that makes one HTTPS POST, started
 *     as fast as the client can, on a worker of its own (a child process).
 * (b) the service: platform write (the real API) → event → dispatcher → delivery workflow →
 *     signed POST, verified by the receiver with the `standardwebhooks` library; the real worker
 *     (`scripts/worker.ts`) as a child process. The writes of a run are made while the worker is
 *     stopped; the worker then drains them, so the rate is the pipeline's, not the writer's. A
 *     worker starts once the server no longer counts the stopped one as polling (push-workers.ts).
 * Both rates run from the first delivery received to the last, and the CPU per delivery is read
 * from /proc for the worker processes and the dev server over that span. Then: latency from a
 * write's answer to its delivery at half the 1-endpoint rate; the 1-endpoint drain by two worker
 * processes, with its rate against one worker's and each worker's share of the first attempts
 * (from the deliveries' histories); 5 endpoints; and one endpoint answering after 9 s while four
 * others drain. `--workers` runs only the 1-endpoint drains, by one worker and by two.
 * BENCH_DELIVERIES (default 2000), BENCH_LATENCY_WRITES (default 300).
 */
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
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';
import {
  arrivalsOf,
  eachConcurrently,
  measureDrain,
  percentile,
  pidWith,
  round,
  startChild,
  startReceiver,
  stopChild,
} from './push-support.ts';
import { benchClient, benchProperty, putBenchPlace } from './platform-client.ts';
import { machine } from './machine.ts';
import { firstAttemptShares, untilNoWorkerPolls } from './push-workers.ts';
import { workflowIds } from '../workflows/ids.ts';

const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 2000);
const LATENCY_WRITES = Number(process.env.BENCH_LATENCY_WRITES ?? 300);
const PROPERTIES = 16;
const TASK_QUEUE = 'bench-push';
/** `--workers`: only the 1-endpoint drain by one worker and by two. */
const WORKERS_ONLY = process.argv.includes('--workers');
const PLATFORM_TOKEN = 'bench-platform-token-0123456789abcdefghijklmnop';
const SERVER_SECRET = 'bench-server-secret-0123456789abcdefghij';
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

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
const secrets = await loadSecrets(config);
const deps = serviceDeps({
  orm,
  temporal: client.client,
  config,
  clock: systemClock,
  log: createLogger('silent'),
  secrets,
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
 * `count` worker processes, started side by side. Each is counted from its spawn: its dispatcher
 * delivers before it says it is running (a drain's first CPU reading must see it).
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

/** The pipeline's drain of `count` deliveries to `paths` by `workerCount` workers, written while none ran. */
async function pipelineDrain(paths: string[], count: number, writesNeeded: number, workerCount = 1) {
  await stopWorkers();
  // The workers of this drain start once the stopped ones no longer count as polling.
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

/**
 * The 1-endpoint drain by `workerCount` workers: its rate, each worker's share of the first
 * attempts and how many deliveries started eagerly.
 */
async function endpointDrain(endpointId: string, workerCount: number) {
  const { drain, since } = await pipelineDrain(['/e1'], TOTAL, TOTAL, workerCount);
  const ids = receiver.arrivals
    .filter((a) => a.at > since && a.path === '/e1')
    .map((a) => workflowIds.webhookDelivery(endpointId, a.id));
  const pids = workers.map((w) => w.pid!);
  return { ...drain, ...(await firstAttemptShares(client.client, ids, pids)) };
}

/** (a) The naive baseline: its drain of TOTAL workflows, each POSTing once from an activity. */
async function naiveBaseline() {
  const naiveWorker = await startChild(
    here('./push-naive-worker.ts'),
    [temporal.address, 'bench-naive', `${receiver.origin}/naive`, receiver.caFile],
    {},
    'ready',
  );
  children.push(naiveWorker);
  const startNaive = (prefix: string, n: number) =>
    eachConcurrently(Array.from({ length: n }), 32, async (_, i) => {
      await client.client.workflow.start('naiveDelivery', {
        workflowId: `${prefix}-${i}`,
        taskQueue: 'bench-naive',
        args: [`${prefix}-${i}`],
      });
    });
  await startNaive('naive-warm', 50);
  await arrivalsOf(receiver, (a) => a.id.startsWith('naive-warm-'), 50, 120_000);
  const naive = await measureDrain(receiver, {
    filter: (a) => a.id.startsWith('naive-run-'),
    count: TOTAL,
    pids: () => ({ workers: [naiveWorker.pid!], server: serverPid }),
    timeoutMs: 600_000,
    start: () => startNaive('naive-run', TOTAL),
  });
  await stopChild(naiveWorker);
  return naive;
}

try {
  const naive = WORKERS_ONLY ? undefined : await naiveBaseline();

  // (b) The service: a channel with one endpoint, K published properties.
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

  const one = await endpointDrain(e1, 1);
  /** The same drain by two workers, against this one's. */
  const twoWorkers = async () => {
    const two = await endpointDrain(e1, 2);
    return {
      '(b) service, 1 endpoint, two workers': two,
      'ratio two workers / one, deliveries per second': round(two.perSecond / one.perSecond, 2),
    };
  };
  if (WORKERS_ONLY) {
    const workersFigures = await twoWorkers();
    console.log(JSON.stringify({ machine: machine(), '(b) service, 1 endpoint': one, ...workersFigures }, null, 2));
  } else {
    // Latency at half the 1-endpoint rate: one writer, paced, so write i is the i-th event of the log.
    const [{ id: channelId }] = await orm.em
      .fork()
      .execute<[{ id: string }]>("select id from channel where name = 'bench-channel'");
    const [{ last_position: before }] = await orm.em
      .fork()
      .execute<[{ last_position: string }]>('select last_position from channel_log where channel_id = ?', [channelId]);
    const pace = 1000 / (one.perSecond / 2);
    const answered: number[] = [];
    const latencyStart = performance.now();
    for (let i = 0; i < LATENCY_WRITES; i += 1) {
      const due = latencyStart + i * pace;
      if (performance.now() < due) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      await write();
      answered.push(performance.now());
    }
    const latencyRate = LATENCY_WRITES / ((answered.at(-1)! - latencyStart) / 1000);
    const events = await orm.em
      .fork()
      .execute<{ id: string }[]>('select id from event where channel_id = ? and position > ? order by position', [
        channelId,
        before,
      ]);
    if (events.length !== LATENCY_WRITES) throw new Error(`${events.length} events for ${LATENCY_WRITES} writes`);
    const wanted = new Set(events.map((e) => e.id));
    const latencyArrivals = await arrivalsOf(
      receiver,
      (a) => a.path === '/e1' && wanted.has(a.id),
      LATENCY_WRITES,
      120_000,
    );
    const receivedAt = new Map(latencyArrivals.map((a) => [a.id, a.at]));
    const latencies = events.map((e, i) => receivedAt.get(e.id)! - answered[i]!);

    const workersFigures = await twoWorkers();

    // Five endpoints.
    for (const route of ['/e2', '/e3', '/e4', '/e5']) await addEndpoint(route);
    const { drain: five } = await pipelineDrain(['/e1', '/e2', '/e3', '/e4', '/e5'], TOTAL, Math.ceil(TOTAL / 5));

    // One endpoint answering after 9 s while four drain.
    receiver.delay('/e5', 9_000);
    const slowWrites = Math.ceil(TOTAL / 5);
    const { drain: fast, writing: slowSince } = await pipelineDrain(
      ['/e1', '/e2', '/e3', '/e4'],
      slowWrites * 4,
      slowWrites,
    );
    const slowArrivals = await arrivalsOf(receiver, (a) => a.at > slowSince && a.path === '/e5', slowWrites, 600_000);
    const slowDrainS = (Math.max(...slowArrivals.map((a) => a.at)) - slowSince) / 1000;

    console.log(
      JSON.stringify(
        {
          machine: machine(),
          '(a) naive: workflow + one activity POSTing': naive,
          '(b) service, 1 endpoint': one,
          '(b) service, 5 endpoints': five,
          'ratio (b)/(a) deliveries per second': {
            '1 endpoint': round(one.perSecond / naive!.perSecond, 2),
            '5 endpoints': round(five.perSecond / naive!.perSecond, 2),
          },
          'ratio worker CPU per delivery (b)/(a)': {
            '1 endpoint': round(one.workerCpuMsPerDelivery / naive!.workerCpuMsPerDelivery, 2),
            '5 endpoints': round(five.workerCpuMsPerDelivery / naive!.workerCpuMsPerDelivery, 2),
          },
          [`write answered → delivery received, ms, at ${round(latencyRate)} writes/s (half the 1-endpoint rate), ${LATENCY_WRITES} writes`]:
            { median: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), p99: percentile(latencies, 0.99) },
          'one endpoint answering after 9 s, four others': {
            'four fast endpoints, deliveries per second': fast.perSecond,
            'the same four in the all-fast 5-endpoint run (4/5 of its rate)': round((five.perSecond * 4) / 5),
            'slow endpoint: deliveries, all received after s': {
              deliveries: slowArrivals.length,
              seconds: round(slowDrainS),
            },
          },
          ...workersFigures,
          'signatures failing standardwebhooks verification': receiver.unverified(),
        },
        null,
        2,
      ),
    );
  }
} finally {
  for (const child of children) await stopChild(child);
  await server.close();
  agent.destroy();
  await client.close();
  await orm.close(true);
  await temporal.stop();
  await scratch.drop();
  await receiver.close();
}
