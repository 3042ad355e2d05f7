import type { ClientRequest, IncomingMessage } from 'node:http';
import {
  createTraceState,
  diag,
  DiagLogLevel,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
  type SerializableSpan,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { createLogger } from './logger.ts';
import { redactingExporter } from './span-redaction.ts';
import { type TracedProcess, type TracingRuntime, type TracingSettings, type TraceExporterName } from './tracing.ts';

/** `service.name` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names another. */
const SERVICE_NAMES: Record<TracedProcess, string> = {
  api: 'distribution-service-api',
  worker: 'distribution-service-worker',
  all: 'distribution-service',
};

/** Probes and scrapes are not traced: many a minute, and nothing to follow. */
const UNTRACED_PATHS = new Set(['/health', '/health/live', '/metrics']);

function nonNegative(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`invalid configuration:\n  ${name}: a whole number ≥ 0`);
  return number;
}

function processorFor(
  name: TraceExporterName,
  settings: TracingSettings,
  env: NodeJS.ProcessEnv,
  operatorResourceKeys: ReadonlySet<string>,
): SpanProcessor {
  const redacted = (exporter: SpanExporter) => redactingExporter(exporter, operatorResourceKeys);
  if (name === 'console') return new SimpleSpanProcessor({ exporter: redacted(new ConsoleSpanExporter()) });
  // Endpoint, headers, timeout and compression come from the OTEL_EXPORTER_OTLP_* variables.
  const exporter: SpanExporter =
    settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const option = (key: string, variable: string) => {
    const value = nonNegative(env, variable);
    return value === undefined ? {} : { [key]: value };
  };
  return new BatchSpanProcessor({
    exporter: redacted(exporter),
    ...option('maxQueueSize', 'OTEL_BSP_MAX_QUEUE_SIZE'),
    ...option('scheduledDelayMillis', 'OTEL_BSP_SCHEDULE_DELAY'),
    ...option('exportTimeoutMillis', 'OTEL_BSP_EXPORT_TIMEOUT'),
    ...option('maxExportBatchSize', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  });
}

/** The platform's interface (api/internal, `INTERNAL_BASE`): the one whose callers' trace context is honoured. */
const PLATFORM_PATH = '/internal/v1/';

/** The trace context a caller of another interface sent, kept until its request's span exists to link it. */
const callers = new WeakMap<IncomingMessage, SpanContext>();

/**
 * Before the request's span starts (the instrumentation calls this hook first, then reads the
 * headers): a request outside the platform's interface loses the propagators' headers
 * (`traceparent`, `tracestate`, `baggage`), so its span starts a trace of its own, sampled by
 * this service's sampler; what the caller sent is kept as a link. A channel, an installed app or a
 * browser thus picks no trace id of ours, and no sampling decision (docs/decisions.md "Tracing").
 * No attributes: the exporter decides what of the request a span carries (infra/span-redaction.ts).
 */
function distrustOutsiders(request: IncomingMessage): Record<string, never> {
  if (request.url?.startsWith(PLATFORM_PATH)) return {};
  const sent = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, request.headers));
  if (sent && trace.isSpanContextValid(sent))
    callers.set(request, { traceId: sent.traceId, spanId: sent.spanId, traceFlags: sent.traceFlags });
  for (const field of propagation.fields()) delete request.headers[field];
  return {};
}

/** Once the request's span exists: the link to the caller's span, if one was sent and not honoured. */
function linkCaller(span: Span, request: ClientRequest | IncomingMessage): void {
  const caller = callers.get(request as IncomingMessage);
  if (caller) span.addLink({ context: caller });
}

function instrumentationsFor(kind: TracedProcess) {
  const pg = new PgInstrumentation({
    // A query outside any request or activity (housekeeping, the database watch) is no trace.
    requireParentSpan: true,
    enhancedDatabaseReporting: false,
  });
  if (kind === 'worker') return [pg];
  const http = new HttpInstrumentation({
    // The webhook POSTs make a span of their own, of a trace of its own (infra/tracing.ts `inOwnTrace`).
    disableOutgoingRequestInstrumentation: true,
    ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(request.url?.split('?')[0] ?? ''),
    startIncomingSpanHook: distrustOutsiders,
    requestHook: linkCaller,
  });
  // Express: the route's handlers only, not a span per middleware and router passed (a dozen a
  // request: request id, access log, headers, each router), which cost a small read more than the
  // rest of its trace and say little its statements' spans do not (docs/benchmarks.md).
  const express = new ExpressInstrumentation({
    ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER],
  });
  return [http, express, pg];
}

/**
 * A span the Temporal workflow interceptors made inside the workflow sandbox, as the SDK of this
 * process exports it. The interceptors serialise their own (1.x) span shape; this SDK's exporters
 * read the parent as `parentSpanContext` and the scope as `instrumentationScope`.
 */
export function workflowSpan(span: SerializableSpan, info: WorkflowInfo, resource: Resource): ReadableSpan {
  const { traceState, ...rest } = span.spanContext;
  const spanContext: SpanContext = { ...rest, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => spanContext,
    ...(span.parentSpanId
      ? {
          parentSpanContext: {
            traceId: spanContext.traceId,
            spanId: span.parentSpanId,
            traceFlags: spanContext.traceFlags,
          },
        }
      : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: {
      ...span.attributes,
      temporalWorkflowId: info.workflowId,
      run_id: info.runId,
      temporalWorkflowType: info.workflowType,
      temporalTaskQueue: info.taskQueue,
    },
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource,
    instrumentationScope: span.instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' },
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** The sink the workflow interceptors export through: each span to every processor of the SDK. */
export function workflowSpanSink(
  processors: readonly SpanProcessor[],
  resource: Resource,
): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          for (const span of spans) {
            const readable = workflowSpan(span, info, resource);
            for (const processor of processors) processor.onEnd(readable);
          }
        },
      },
    },
  };
}

/** Diagnostics of the SDK (a collector that refuses, a full queue) as the process's log lines. */
function routeDiagnostics(kind: TracedProcess, env: NodeJS.ProcessEnv): void {
  const level = env.LOG_LEVEL === 'silent' ? 'silent' : 'warn';
  const log = createLogger(level, { process: kind, component: 'opentelemetry' });
  const write =
    (at: 'warn' | 'error') =>
    (message: string, ...args: unknown[]) =>
      log[at](message, args.length > 0 ? { detail: args.map(String).join(' ') } : undefined);
  const ignore = () => undefined;
  diag.setLogger(
    { error: write('error'), warn: write('warn'), info: ignore, debug: ignore, verbose: ignore },
    DiagLogLevel.WARN,
  );
}

export function startTracingSdk(
  settings: TracingSettings,
  kind: TracedProcess,
  env: NodeJS.ProcessEnv,
): TracingRuntime {
  routeDiagnostics(kind, env);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': SERVICE_NAMES[kind] }))
    .merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
  // What the operator put in the resource (OTEL_RESOURCE_ATTRIBUTES) is exported whatever its keys.
  const operatorResourceKeys = new Set(Object.keys(detectResources({ detectors: [envDetector] }).attributes));
  const processors = settings.exporters.map((name) => processorFor(name, settings, env, operatorResourceKeys));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: processors,
    instrumentations: instrumentationsFor(kind),
    // Traces only: the metrics are Prometheus's (METRICS_PORT), the logs are the JSON lines.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return {
    temporalClient: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    temporalWorker: {
      activityInterceptors: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      sinks: workflowSpanSink(processors, resource),
    },
    shutdown: () => sdk.shutdown(),
  };
}
