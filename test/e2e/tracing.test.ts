import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { channelKey } from '../../scripts/chaos/observe.ts';
import { freePort } from '../../scripts/chaos/servers.ts';
import {
  apiClient,
  startServiceProcess,
  waitForLive,
  waitForLog,
  type ApiClient,
  type ServiceProcess,
} from '../../scripts/chaos/service.ts';
import { chaosProperty, platformWrites } from '../../scripts/chaos/writes.ts';
import { selfSignedCertificate } from '../../infra/tls.ts';
import { freshDatabase } from '../support/database.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

// Tracing end to end, as deployed: real `scripts/api.ts` and `scripts/worker.ts` processes with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a collector of the test's own (the API exporting
// http/json, the worker http/protobuf), a Temporal dev server, PostgreSQL and an HTTPS receiver.

const PLATFORM_TOKEN = 'svc_platform_trace-token-0123456789abcdefghijklmn';
/** OTLP's span kind of a server span. */
const SERVER = 2;

let dir: string;
let otlp: OtlpReceiver;
let receiver: Receiver;
let api: ApiClient;
const processes: ServiceProcess[] = [];
let apiProcess: ServiceProcess;
/** The endpoint's signing secret, shown once at creation. */
let secret: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-tracing-'));
  otlp = await startOtlpReceiver();
  receiver = await startReceiver();
  const { url } = await freshDatabase();
  const pems = await selfSignedCertificate({ dns: ['localhost'], ips: ['127.0.0.1'] });
  await writeFile(path.join(dir, 'api.crt'), pems.cert);
  await writeFile(path.join(dir, 'api.key'), pems.key);
  const port = await freePort();
  const taskQueue = `e2e-tracing-${randomBytes(4).toString('hex')}`;
  const env = (name: string, protocol: string): Record<string, string> => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    SERVER_SECRET: 'trace-server-secret-0123456789abcdefghijklmn',
    PLATFORM_TOKEN,
    WEBHOOK_ALLOW_LOCAL: 'true',
    WEBHOOK_CA_FILE: receiver.caFile,
    TLS_CERT: path.join(dir, 'api.crt'),
    TLS_KEY: path.join(dir, 'api.key'),
    HOST: '127.0.0.1',
    PORT: String(port),
    HTTP_PORT: '0',
    DATA_DIR: path.join(dir, `data-${name}`),
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  apiProcess = startServiceProcess('api', 'scripts/api.ts', env('api', 'http/json'), dir);
  processes.push(apiProcess);
  api = apiClient(`https://127.0.0.1:${port}`, pems.cert);
  await waitForLive(apiProcess, api, 120_000);
  const worker = startServiceProcess('worker', 'scripts/worker.ts', env('worker', 'http/protobuf'), dir);
  processes.push(worker);
  await waitForLog(worker, 'worker running', 120_000);

  const key = await channelKey(env('admin', 'http/json'), 'trace-channel');
  const created = await api.call('POST', '/api/v1/distribution/webhooks', key, {
    url: `${receiver.url}/traced`,
    events: ['property.*'],
  });
  expect(created.status, created.text).toBe(201);
  secret = (created.json as { secret: string }).secret;
  const writes = platformWrites({
    apis: [api],
    token: PLATFORM_TOKEN,
    channel: 'trace-channel',
    properties: 1,
    concurrency: 1,
    deadline: Date.now() + 60_000,
  });
  await writes.setUp();
  // Warm: the dispatcher runs and the first delivery has arrived.
  await receiver.waitFor(1, 60_000);
}, 300_000);

afterAll(async () => {
  for (const p of processes) await p.kill('SIGTERM');
  api?.close();
  await otlp?.close();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const byId = (spans: ReceivedSpan[]) => new Map(spans.map((span) => [span.spanId, span]));

/** The span and its ancestors as far as they were exported, nearest first. */
function ancestry(spans: ReceivedSpan[], from: ReceivedSpan): ReceivedSpan[] {
  const index = byId(spans);
  const chain = [from];
  for (let next = index.get(from.parentSpanId); next; next = index.get(next.parentSpanId)) chain.push(next);
  return chain;
}

test("a platform write's trace (its incoming traceparent honoured) runs through the API, the dispatcher's start and the delivery attempt, whose span the receiver gets as traceparent", async () => {
  const traceId = randomBytes(16).toString('hex');
  const callerSpan = randomBytes(8).toString('hex');
  const before = receiver.received.length;
  const written = await api.call('PUT', '/internal/v1/properties/chaos-p0', PLATFORM_TOKEN, chaosProperty(7), {
    traceparent: `00-${traceId}-${callerSpan}-01`,
  });
  expect(written.status, written.text).toBeLessThan(300);

  // The change's delivery: the one POST whose traceparent names the write's trace.
  const ours = () => receiver.received.slice(before).find((r) => r.headers.traceparent?.includes(traceId));
  for (const deadline = Date.now() + 30_000; !ours() && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const delivery = ours();
  expect(delivery, JSON.stringify(receiver.received.slice(before).map((r) => r.headers))).toBeDefined();
  const [, sentTrace, attemptSpanId, flags] = delivery!.headers.traceparent!.split('-');
  expect(sentTrace).toBe(traceId);
  expect(flags).toBe('01');
  // The trace headers sit beside the three Standard Webhooks headers, which still verify.
  expect(new Webhook(secret).verify(delivery!.body, delivery!.headers)).toMatchObject({ type: 'property.updated' });

  // Every span of the chain exported: API (JSON) and worker (protobuf) alike.
  const spans = (
    await otlp.waitFor((all) => {
      const attempt = all.find((s) => s.spanId === attemptSpanId);
      return attempt !== undefined && ancestry(all, attempt).at(-1)?.parentSpanId === callerSpan;
    }, 30_000)
  ).filter((span) => span.traceId === traceId);

  const attempt = spans.find((s) => s.spanId === attemptSpanId)!;
  expect(attempt).toMatchObject({ name: 'RunActivity:attemptDelivery', service: 'distribution-service-worker' });
  const chain = ancestry(spans, attempt);
  const names = chain.map((s) => `${s.service.replace('distribution-service-', '')} ${s.name}`);
  // The attempt's workflow, started by the dispatcher under the write's span, in the API's request.
  expect(names.slice(0, 5), names.join(' <- ')).toEqual([
    'worker RunActivity:attemptDelivery',
    'worker StartActivity:attemptDelivery',
    'worker RunWorkflow:webhookDelivery',
    'worker StartWorkflow:webhookDelivery',
    'worker webhook dispatch',
  ]);
  const dispatch = chain[4]!;
  expect(dispatch.attributes).toMatchObject({
    'webhook.event_type': 'property.updated',
    'webhook.channel': 'trace-channel',
  });
  // Linked to the dispatcher's own run (another trace: the dispatcher outlives any write).
  expect(dispatch.links).toHaveLength(1);
  expect(dispatch.links[0]!.traceId).not.toBe(traceId);
  const apiPart = chain.slice(5);
  expect(apiPart.length).toBeGreaterThan(0);
  expect(apiPart.every((s) => s.service === 'distribution-service-api')).toBe(true);
  const root = chain.at(-1)!;
  expect(root).toMatchObject({ kind: SERVER, parentSpanId: callerSpan, scope: '@opentelemetry/instrumentation-http' });
  expect(root.attributes['http.route']).toBe('/internal/v1/properties/:ref');
  // The request's Express handler and its statements are in the trace too.
  const apiSpans = spans.filter((s) => s.service === 'distribution-service-api');
  expect(apiSpans.some((s) => s.scope === '@opentelemetry/instrumentation-express')).toBe(true);
  const statements = apiSpans
    .filter((s) => s.scope === '@opentelemetry/instrumentation-pg')
    .map((s) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
  expect(statements.some((text) => text.startsWith('insert into event '))).toBe(true);
  expect(new Set(apiSpans.map((s) => s.encoding))).toEqual(new Set(['http/json']));
  expect(new Set(spans.filter((s) => s.service === 'distribution-service-worker').map((s) => s.encoding))).toEqual(
    new Set(['http/protobuf']),
  );
  expect(otlp.refused).toEqual([]);

  // The API's log line of the request carries the trace.
  const line = apiProcess
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.message === 'request' && l.method === 'PUT' && l.trace_id === traceId);
  expect(line).toMatchObject({
    path: '/internal/v1/properties/chaos-p0',
    span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
  });
});
