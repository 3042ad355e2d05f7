import { SpanKind, SpanStatusCode, createTraceState, type Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { redactingExporter } from '../../infra/span-redaction.ts';

// The exporter every span leaves through when tracing is on (infra/tracing-sdk.ts), fed spans as
// the instrumentations make them: what it hands on is what a collector receives.

const EMAIL = 'ana.popescu@example.ro';
/** A unique violation as pg reports it: the row's value is in the message and the detail. */
const pgError = Object.assign(new Error(`duplicate key value violates unique constraint "guest_email" (${EMAIL})`), {
  name: 'error',
  code: '23505',
  detail: `Key (email)=(${EMAIL}) already exists.`,
});

let memory: InMemorySpanExporter;
let provider: TracerProvider;
let tracer: Tracer;

beforeEach(() => {
  memory = new InMemorySpanExporter();
  provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'distribution-service-api',
      'process.pid': 7,
      'process.command_args': ['node', 'scripts/api.ts', `--contact=${EMAIL}`],
      'process.owner': 'ana',
      'k8s.pod.name': 'api-1',
    }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: redactingExporter(memory, new Set(['k8s.pod.name'])) })],
  });
  tracer = provider.getTracer('test');
});

afterEach(() => provider.shutdown());

test("an exception's message and stack, the status's message and unlisted attributes are not exported; the exception's type, the status code and listed attributes are", async () => {
  const span = tracer.startSpan('pg.query:INSERT distribution', {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system.name': 'postgresql',
      'db.query.text': `insert into guest (email) values ('${EMAIL}')`,
      'db.postgresql.values': [EMAIL],
      'user_agent.original': EMAIL,
    },
  });
  span.recordException(pgError);
  span.addEvent('note', { detail: EMAIL, 'exception.type': 'kept' });
  span.setStatus({ code: SpanStatusCode.ERROR, message: pgError.message });
  span.end();
  await provider.forceFlush();

  const [exported] = memory.getFinishedSpans();
  const { name, attributes, events, status, links } = exported!;
  expect(JSON.stringify({ name, attributes, events, status, links })).not.toContain(EMAIL);
  expect(exported).toMatchObject({
    name: 'pg.query:INSERT distribution',
    kind: SpanKind.CLIENT,
    status: { code: SpanStatusCode.ERROR },
    attributes: { 'db.system.name': 'postgresql', 'db.query.text': 'insert into guest (email) values (?)' },
  });
  expect(exported!.status.message).toBeUndefined();
  expect(Object.keys(exported!.attributes).sort()).toEqual(['db.query.text', 'db.system.name']);
  expect(exported!.events.map((event) => [event.name, event.attributes])).toEqual([
    ['exception', { 'exception.type': '23505' }],
    ['note', { 'exception.type': 'kept' }],
  ]);
});

test("links keep the span they point to, without its tracestate or their attributes; the span's own ids, parent and times are kept", async () => {
  const linked = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 1,
    traceState: createTraceState(`caller=${EMAIL.replace(/[@.]/g, '_')}`),
  };
  const span = tracer.startSpan('GET /api/v1/distribution/events', {
    kind: SpanKind.SERVER,
    links: [{ context: linked, attributes: { note: EMAIL } }],
  });
  span.end();
  await provider.forceFlush();

  const [exported] = memory.getFinishedSpans();
  expect(exported!.links).toEqual([
    { context: { traceId: linked.traceId, spanId: linked.spanId, traceFlags: 1 }, attributes: {} },
  ]);
  expect(exported!.spanContext()).toEqual(span.spanContext());
  expect(exported!.startTime).toEqual((span as unknown as { startTime: unknown }).startTime);
  expect(exported!.instrumentationScope.name).toBe('test');
});

test("the resource keeps the service, the process's id and what the operator set; not the command line or the owner", async () => {
  tracer.startSpan('webhook dispatch').end();
  await provider.forceFlush();
  const [exported] = memory.getFinishedSpans();
  expect(exported!.resource.attributes).toEqual({
    'service.name': 'distribution-service-api',
    'process.pid': 7,
    'k8s.pod.name': 'api-1',
  });
});
