import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import { beforeAll, expect, test } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { workflowCodeOptions, workflowSinks } from '../../app/worker.ts';
import { systemClock } from '../../domain/clock.ts';
import { redactingExporter } from '../../infra/span-redaction.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import { onCleanup } from '../support/cleanup.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { timeSkippingEnvironment } from '../support/time-skipping.ts';
import { activityDeps } from '../support/worker.ts';

// Each delivery attempt's span, as a collector receives it: the worker runs with the Temporal
// activity interceptor, as a traced worker does, and every span leaves through the redacting
// exporter (infra/span-redaction.ts) into memory. Deliveries run on the time-skipping server
// against a real HTTPS receiver and a real Postgres.

const BASE = '/api/v1/distribution';
const memory = new InMemorySpanExporter();
let env: TestWorkflowEnvironment;
let bed: ApiTestBed<typeof systemClock>;
let orm: MikroORM;
let receiver: Receiver;

beforeAll(async () => {
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': 'distribution-service-worker' }),
    autoDetectResources: false,
    spanProcessors: [new SimpleSpanProcessor({ exporter: redactingExporter(memory, new Set()) })],
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  onCleanup(() => sdk.shutdown());
  env = await timeSkippingEnvironment();
  receiver = await startReceiver();
  bed = await apiTestBed({
    clock: systemClock,
    temporal: env.client,
    taskQueue: 'attempt-spans',
    receiver,
    env: { DISPATCH_POLL_SECONDS: String(30 * 86_400) },
  });
  orm = bed.orm;
  const taskQueue = bed.taskQueue!;
  const code = workflowCodeOptions();
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...code,
    sinks: workflowSinks(),
    interceptors: {
      ...code.interceptors,
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })],
    },
    activities: createActivities(
      activityDeps(orm, { client: env.client, taskQueue, webhooks: { allowLocal: true, caFile: receiver.caFile } }),
    ),
  });
  const running = worker.run();
  onCleanup(async () => {
    worker.shutdown();
    await running;
  });
});

let counter = 0;
/** A channel with one endpoint at `url` and a property distributed to it: its one delivery's workflow. */
async function deliveryTo(url: string) {
  counter += 1;
  const { channel, key } = await bed.channel({ scopes: ['read:catalog', 'manage:webhooks'] });
  const created = await bed.api.call('POST', `${BASE}/webhooks`, {
    key: key.key,
    body: { url, events: ['property.*'] },
  });
  expect(created.status, created.text).toBe(201);
  const endpointId = String(created.json.id);
  const ref = `spans-${counter}`;
  await bed.host.organization(`${ref}-org`);
  await bed.host.owner(`${ref}-own`, { organization: `${ref}-org` });
  await bed.host.location(`${ref}-loc`, { organization: `${ref}-org`, owner: `${ref}-own` });
  await bed.host.property(`${ref}-p`, { location: `${ref}-loc`, owner: `${ref}-own` });
  await bed.host.distribute(`${ref}-p`, [channel.name]);
  for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
    const [row] = await orm.em
      .fork()
      .execute<{ event_id: string }[]>('select event_id from webhook_delivery where endpoint_id = ?', [endpointId]);
    if (row) return env.client.workflow.getHandle(workflowIds.webhookDelivery(endpointId, row.event_id));
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no delivery was dispatched');
}

/** The `webhook attempt` spans under the delivery's attempt activities, in the order they ended. */
function attemptSpans(workflowId: string): ReadableSpan[] {
  const spans = memory.getFinishedSpans();
  const activities = new Set(
    spans
      .filter((s) => s.name === 'RunActivity:attemptDelivery' && s.attributes.temporalWorkflowId === workflowId)
      .map((s) => s.spanContext().spanId),
  );
  return spans.filter((s) => s.name === 'webhook attempt' && activities.has(s.parentSpanContext?.spanId ?? ''));
}

const said = (span: ReadableSpan) => ({ attributes: span.attributes, status: span.status.code });

test("a failed attempt's span says so (ERROR, outcome failed, the answer's status and reason, its number); the retry's says delivered", async () => {
  receiver.respond(500);
  const before = receiver.received.length;
  const delivery = await deliveryTo(`${receiver.url}/spans-500`);
  await receiver.waitFor(before + 1, 20_000);
  receiver.respond(204);
  expect(await delivery.result()).toBe('delivered');

  expect(attemptSpans(delivery.workflowId).map(said)).toEqual([
    {
      attributes: {
        'webhook.attempt': 1,
        'webhook.outcome': 'failed',
        'http.response.status_code': 500,
        'error.type': 'http_status',
      },
      status: SpanStatusCode.ERROR,
    },
    {
      attributes: { 'webhook.attempt': 2, 'webhook.outcome': 'delivered', 'http.response.status_code': 204 },
      status: SpanStatusCode.UNSET,
    },
  ]);
});

test("a 410's attempt span is an error with outcome gone", async () => {
  receiver.respond(410);
  const delivery = await deliveryTo(`${receiver.url}/spans-410`);
  expect(await delivery.result()).toBe('gone');
  receiver.respond(204);

  expect(attemptSpans(delivery.workflowId).map(said)).toEqual([
    {
      attributes: {
        'webhook.attempt': 1,
        'webhook.outcome': 'gone',
        'http.response.status_code': 410,
        'error.type': 'http_status',
      },
      status: SpanStatusCode.ERROR,
    },
  ]);
});

test('an attempt that got no answer (a refused connection, as a time-out) is an error with its reason and no status code', async () => {
  // A port nothing listens on any more.
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const delivery = await deliveryTo(`https://localhost:${port}/spans-refused`);
  for (const deadline = Date.now() + 20_000; attemptSpans(delivery.workflowId).length === 0;) {
    if (Date.now() > deadline) throw new Error('no attempt span');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await delivery.terminate('enough');

  expect(attemptSpans(delivery.workflowId).map(said)[0]).toEqual({
    attributes: { 'webhook.attempt': 1, 'webhook.outcome': 'failed', 'error.type': 'connection_failed' },
    status: SpanStatusCode.ERROR,
  });
});
