/**
 * `npm run bench:webhooks`: time from a platform write's answer to the signed webhook arriving
 * at an HTTPS receiver on this machine, through the real API, Postgres, the Temporal dev server
 * and a worker (dispatcher signal, delivery workflow, attempt activity). Prints the median and
 * the 95th percentile in milliseconds over BENCH_CHANGES (default 50) sequential changes.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { generate } from 'selfsigned';
import { createChannel } from '../admin/channels.ts';
import { issueKey } from '../admin/keys.ts';
import { systemClock } from '../domain/clock.ts';
import { createMailer } from '../infra/mailer.ts';
import { createWebhookSender } from '../infra/webhook-sender.ts';
import { createWorker } from '../app/worker.ts';
import { benchClient, benchProperty, putBenchPlace } from './platform-client.ts';
import { machine } from './machine.ts';
import { serveOverTls, standUp } from './service-stand.ts';

const CHANGES = Number(process.env.BENCH_CHANGES ?? 50);
const TASK_QUEUE = 'bench-webhooks';
const PLATFORM_TOKEN = 'bench-platform-token-0123456789abcdefghijklmnop';

// The receiver: HTTPS on this machine with its own self-signed certificate.
const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
  keyType: 'ec',
  algorithm: 'sha256',
  extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
});
const caFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'svc-bench-receiver-')), 'receiver.crt');
await writeFile(caFile, pems.cert);
let onRequest: (() => void) | undefined;
const receiver = https.createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
    onRequest?.();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `https://localhost:${(receiver.address() as AddressInfo).port}/hooks`;

const stand = await standUp({
  inheritEnv: false,
  env: {
    NODE_ENV: 'test',
    PLATFORM_TOKEN,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    WEBHOOK_ALLOW_LOCAL: 'true',
    WEBHOOK_CA_FILE: caFile,
  },
});
const { orm, config, deps } = stand;
const { secrets, log } = deps;
const connection = await NativeConnection.connect({ address: stand.temporal.address });
const worker = await createWorker({
  connection,
  namespace: 'default',
  taskQueue: TASK_QUEUE,
  deps: {
    orm,
    clock: systemClock,
    log,
    workflows: deps.workflows,
    webhookSender: createWebhookSender({ secrets, clock: systemClock, settings: config.webhooks }),
    mailer: createMailer(config.mail),
    secrets,
    environment: config.environment,
  },
});
const running = worker.run();
const server = await serveOverTls(stand);
const { tls } = server;
const agent = new https.Agent({ keepAlive: true, ca: tls.cert, maxSockets: 1 });

const { call, put } = benchClient(server.url, agent, PLATFORM_TOKEN);

const nextRequest = () => new Promise<void>((resolve) => (onRequest = resolve));

try {
  const ctx = deps;
  await createChannel(ctx, { name: 'bench-channel', rateLimit: 1_000_000 });
  const key = (await issueKey(ctx, { channel: 'bench-channel', scopes: 'read:catalog,manage:webhooks' })).key;
  const created = await call('POST', '/api/v1/distribution/webhooks', key, {
    url: receiverUrl,
    events: ['property.*'],
  });
  if (created.status !== 201) throw new Error(`webhook creation answered ${created.status}`);

  await putBenchPlace(put);
  await put('/properties/bench-p', benchProperty(1));
  const first = nextRequest();
  await put('/properties/bench-p/distribution', { channels: ['bench-channel'] });
  await first; // warm: dispatcher started, bundle loaded

  const samples: number[] = [];
  for (let i = 0; i < CHANGES; i += 1) {
    const arrived = nextRequest();
    await put('/properties/bench-p', benchProperty(2 + i));
    const answered = performance.now();
    await arrived;
    samples.push(performance.now() - answered);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(1));
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        changes: CHANGES,
        'write answered → webhook received, ms': { median: at(0.5), p95: at(0.95), max: at(1) },
      },
      null,
      2,
    ),
  );
} finally {
  await server.close();
  agent.destroy();
  worker.shutdown();
  await running;
  await connection.close();
  await stand.close();
  receiver.close();
}
