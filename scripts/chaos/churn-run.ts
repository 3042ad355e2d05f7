import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { checkDeliveries, type DeliveryFindings, type RegisteredEndpoint } from './check.ts';
import { checkCommitOrder, type CommitOrderFindings, type ReadEvent } from './churn-check.ts';
import { channelKey, runAdmin } from './observe.ts';
import { startChaosReceiver } from './receiver.ts';
import { freePort, sleep, startChaosPostgres, startChaosTemporal } from './servers.ts';
import {
  apiClient,
  chaosServiceEnvironment,
  startServiceProcess,
  waitForLive,
  waitForLog,
  type ApiClient,
  type ServiceProcess,
} from './service.ts';

/**
 * The chaos run's checker pointed at the sandbox churn: a generated catalogue on a PostgreSQL and
 * Temporal dev server of its own, one API and its workers as separate processes, the churn at a
 * given rate for a given time, and meanwhile a channel syncing through GET /events (a page a
 * second from its cursor, as the contract's sync loop) and webhook endpoints on an HTTPS receiver.
 * Then the same verdicts as the chaos run: every (endpoint, event) delivered, ids and signatures
 * right; and commit order: the syncing channel met every event a full read finds, in its order,
 * with each record's versions only increasing.
 */

export interface ChurnChaosOptions {
  minutes: number;
  rate: number;
  properties: number;
  workers: number;
  /** Webhook endpoints, 1 to 3: `*`, then `property.*`, then `availability.updated`. */
  endpoints: number;
  seed: number;
  /** How long after the churn stops deliveries may take to arrive. */
  settleMs: number;
  keep: boolean;
  log: (line: string) => void;
}

export interface ChurnChaosReport {
  options: Omit<ChurnChaosOptions, 'log' | 'keep'>;
  churn: Record<string, unknown>;
  changesPerSecond: number;
  events: number;
  /** Requests of the syncing channel that failed and were tried again. */
  syncFailures: number;
  commitOrder: CommitOrderFindings;
  deliveries: DeliveryFindings;
  crashed: string[];
  seconds: { generate: number; churn: number; settle: number; total: number };
  dir: string;
}

const SERVER_SECRET = 'chaos-server-secret-0123456789abcdefghijklmn';
const PLATFORM_TOKEN = 'svc_platform_chaos-token-0123456789abcdefghijklmn';
const CHANNELS = ['chaos-travel', 'chaos-stays'];
const ENDPOINTS: RegisteredEndpoint[] = [
  { name: 'all', events: ['*'] },
  { name: 'properties', events: ['property.*'] },
  { name: 'nights', events: ['availability.updated'] },
];

const admin = (env: Record<string, string>, ...args: string[]) => runAdmin(env, args);

/**
 * The channel's sync loop: pages of GET /events from its cursor, until `stop()`, then to the end.
 * A refused or failed request (a connection reset) is tried again a second later, as a channel would.
 */
function syncingChannel(api: ApiClient, key: string, cursor: string | undefined) {
  const read: ReadEvent[] = [];
  let stopping = false;
  /** Once stopping, the reads to the log's end get a minute. */
  let giveUpAt = Infinity;
  let failures = 0;
  const page = async (): Promise<boolean | 'failed'> => {
    const route = `/api/v1/distribution/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api.call('GET', route, key).catch(() => undefined);
    if (answer?.status !== 200) {
      failures += 1;
      return 'failed';
    }
    const body = answer.json as { data: ReadEvent[]; next_cursor: string; has_more: boolean };
    read.push(...body.data);
    cursor = body.next_cursor;
    return body.has_more;
  };
  const running = (async () => {
    for (let more: boolean | 'failed' = false; (!stopping || more !== false) && Date.now() < giveUpAt;) {
      more = await page();
      if (more !== true) await sleep(1000);
    }
  })();
  return {
    read,
    failures: () => failures,
    stop: async () => {
      stopping = true;
      giveUpAt = Date.now() + 60_000;
      await running;
    },
  };
}

/** Every event of the channel from the start, and the cursor after the last. */
async function fullRead(api: ApiClient, key: string): Promise<{ events: ReadEvent[]; cursor: string | undefined }> {
  const events: ReadEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const route = `/api/v1/distribution/events?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api.call('GET', route, key);
    if (answer.status !== 200) throw new Error(`GET /events answered ${answer.status}: ${answer.text}`);
    const body = answer.json as { data: ReadEvent[]; next_cursor: string; has_more: boolean };
    events.push(...body.data);
    cursor = body.next_cursor ?? cursor;
    if (!body.has_more) return { events, cursor };
  }
}

async function certificate(dir: string) {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 7 * 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  await writeFile(path.join(dir, 'api.crt'), pems.cert);
  await writeFile(path.join(dir, 'api.key'), pems.private);
  return pems.cert;
}

const secondsSince = (from: number) => Math.round((Date.now() - from) / 100) / 10;

export async function runChurnChaos(options: ChurnChaosOptions): Promise<ChurnChaosReport> {
  const started = Date.now();
  const { log } = options;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-chaos-churn-'));
  await chmod(dir, 0o755);
  const cleanups: (() => Promise<unknown>)[] = [];
  const processes: ServiceProcess[] = [];
  let client: ApiClient | undefined;
  try {
    const pg = await startChaosPostgres(path.join(dir, 'pg'), log);
    cleanups.push(() => pg.close());
    const temporal = await startChaosTemporal(path.join(dir, 'temporal'), log);
    cleanups.push(() => temporal.close());
    const receiver = await startChaosReceiver(dir);
    cleanups.push(() => receiver.close());
    receiver.setSenders(() => processes.filter((p) => !p.exited()));
    const cert = await certificate(dir);
    const env = chaosServiceEnvironment({
      dir,
      databaseUrl: pg.url,
      temporalAddress: temporal.address,
      taskQueue: 'chaos-churn',
      serverSecret: SERVER_SECRET,
      platformToken: PLATFORM_TOKEN,
      receiverCaFile: receiver.caFile,
      environment: 'sandbox',
    });
    const port = await freePort();
    const apiProcess = startServiceProcess('api', 'scripts/api.ts', { ...env('api'), PORT: String(port) }, dir);
    processes.push(apiProcess);
    const api = (client = apiClient(`https://127.0.0.1:${port}`, cert));
    await waitForLive(apiProcess, api, 120_000);
    for (let w = 1; w <= options.workers; w += 1) {
      const worker = startServiceProcess(`worker-${w}`, 'scripts/worker.ts', env(`worker-${w}`), dir);
      processes.push(worker);
      await waitForLog(worker, 'worker running', 120_000);
    }
    log(`servers and processes up: 1 API, ${options.workers} worker(s)`);

    const key = await channelKey(env('admin'), CHANNELS[0]!);
    const generateFrom = Date.now();
    const channelArgs = CHANNELS.flatMap((c) => ['--channel', c]);
    await admin(
      env('admin'),
      'sandbox',
      'generate',
      '--seed',
      String(options.seed),
      '--properties',
      String(options.properties),
      ...channelArgs,
    );
    const generateSeconds = secondsSince(generateFrom);
    log(`catalogue generated: ${options.properties} properties in ${generateSeconds} s`);

    // Endpoints are sent what commits after they are registered: the log's end is read first.
    const before = await fullRead(api, key);
    const endpoints = ENDPOINTS.slice(0, options.endpoints);
    for (const endpoint of endpoints) {
      const created = await api.call('POST', '/api/v1/distribution/webhooks', key, {
        url: `${receiver.baseUrl}${endpoint.name}`,
        events: endpoint.events,
      });
      if (created.status !== 201) throw new Error(`endpoint ${endpoint.name}: ${created.status} ${created.text}`);
      receiver.secrets.set(endpoint.name, (created.json as { secret: string }).secret);
    }
    const sync = syncingChannel(api, key, before.cursor);

    const churnFrom = Date.now();
    await admin(
      env('admin'),
      'sandbox',
      'churn',
      'start',
      '--rate',
      String(options.rate),
      '--seed',
      String(options.seed),
      ...channelArgs,
    );
    log(`churn started at ${options.rate} changes a second for ${options.minutes} minute(s)`);
    const until = churnFrom + options.minutes * 60_000;
    while (Date.now() < until) {
      await sleep(Math.min(60_000, until - Date.now()));
      const status = await admin(env('admin'), 'sandbox', 'churn', 'status');
      log(`churn: ${String(status.changes)} changes, ${sync.read.length} events read by the channel`);
    }
    await admin(env('admin'), 'sandbox', 'churn', 'stop');
    while ((await admin(env('admin'), 'sandbox', 'churn', 'status')).running === true) await sleep(500);
    const churnSeconds = secondsSince(churnFrom);
    const churn = await admin(env('admin'), 'sandbox', 'churn', 'status');
    await sync.stop();

    const full = await fullRead(api, key);
    const commitOrder = checkCommitOrder(sync.read, full.events, before.events.length);
    const expected = full.events.slice(before.events.length);
    const settleFrom = Date.now();
    const deadline = settleFrom + options.settleMs;
    let deliveries = checkDeliveries(expected, endpoints, receiver.arrivals);
    while (deliveries.lost > 0 && Date.now() < deadline) {
      await sleep(1000);
      deliveries = checkDeliveries(expected, endpoints, receiver.arrivals);
    }
    log(`settled: ${deliveries.received} of ${deliveries.expected} pairs received`);
    return {
      options: {
        minutes: options.minutes,
        rate: options.rate,
        properties: options.properties,
        workers: options.workers,
        endpoints: options.endpoints,
        seed: options.seed,
        settleMs: options.settleMs,
      },
      churn,
      changesPerSecond: Math.round((Number(churn.changes) / churnSeconds) * 100) / 100,
      events: expected.length,
      syncFailures: sync.failures(),
      commitOrder,
      deliveries,
      crashed: processes.filter((p) => p.exited()).map((p) => `${p.name}:\n${p.log().slice(-2000)}`),
      seconds: {
        generate: generateSeconds,
        churn: churnSeconds,
        settle: secondsSince(settleFrom),
        total: secondsSince(started),
      },
      dir,
    };
  } finally {
    client?.close();
    await Promise.all(processes.map((p) => p.kill('SIGTERM'))).catch(() => undefined);
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
}
