import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Link,
  type Span,
} from '@opentelemetry/api';
import type { ClientInterceptors } from '@temporalio/client';
import type { WorkerInterceptors, WorkerOptions } from '@temporalio/worker';
import { formatTraceparent, parseTraceparent } from '../domain/traceparent.ts';

/**
 * OpenTelemetry tracing, off unless the standard OTEL_* variables ask for it (docs/operations.md
 * "Tracing"). Off, nothing of the SDK is loaded: no instrumentation, no Temporal interceptor, no
 * log field; the helpers below return at once. On, `startTracing` (before Express and pg are
 * loaded) starts the SDK of infra/tracing-sdk.ts, which this module then asks for its parts.
 */

export type TracedProcess = 'api' | 'worker' | 'all';
export type TraceExporterName = 'otlp' | 'console';
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  exporters: readonly TraceExporterName[];
  /** How `otlp` sends (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL); with `otlp` only. */
  protocol?: OtlpProtocol;
}

/** What a started SDK gives the rest of the process. */
export interface TracingRuntime {
  temporalClient: ClientInterceptors;
  /** The activities' interceptors and the sink the workflows' spans leave the sandbox by. */
  temporalWorker: { activityInterceptors: NonNullable<WorkerInterceptors['activity']>; sinks: WorkerOptions['sinks'] };
  /** Exports what is pending and stops the SDK. */
  shutdown: () => Promise<void>;
}

/** The packages the instrumentations patch, as they are imported (infra/tracing-sdk.ts). */
const INSTRUMENTED_MODULES = ['express', 'pg', 'pg-pool', 'http', 'https', 'node:http', 'node:https'];
const EXPORTERS = new Set<string>(['otlp', 'console']);
const PROTOCOLS = new Set<string>(['http/protobuf', 'http/json']);

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

/**
 * What the environment asks for; undefined when tracing is off. On only when asked: an exporter
 * named in OTEL_TRACES_EXPORTER (`otlp`, `console`), or, with that unset, an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). OTEL_SDK_DISABLED=true and
 * OTEL_TRACES_EXPORTER=none turn it off whatever else is set. A value it cannot honour (another
 * exporter, the grpc protocol) stops the process with the variable's name.
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const problems: string[] = [];
  let exporters = listOf(env.OTEL_TRACES_EXPORTER);
  if (exporters.length === 0) {
    const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
    if (!endpoint) return undefined;
    exporters = ['otlp'];
  }
  if (exporters.includes('none')) {
    if (exporters.length === 1) return undefined;
    problems.push('OTEL_TRACES_EXPORTER: `none` goes alone');
  }
  const unknown = exporters.filter((name) => name !== 'none' && !EXPORTERS.has(name));
  if (unknown.length > 0)
    problems.push(`OTEL_TRACES_EXPORTER: ${unknown.join(', ')} not supported (otlp, console, none)`);
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolVariable]?.trim().toLowerCase() || 'http/protobuf';
  if (exporters.includes('otlp') && !PROTOCOLS.has(protocol))
    problems.push(`${protocolVariable}: ${protocol} not supported (http/protobuf, http/json)`);
  if (problems.length > 0) throw new Error(`invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
  const names = [...new Set(exporters)] as TraceExporterName[];
  return { exporters: names, ...(names.includes('otlp') ? { protocol: protocol as OtlpProtocol } : {}) };
}

let runtime: TracingRuntime | undefined;

/**
 * Starts tracing when the environment asks for it. Called first thing by the entry points, before
 * they import what loads Express and pg (dynamically, after this), so the instrumentations patch
 * them as they load. Without OTEL_* configuration it loads nothing and `shutdown` does nothing.
 */
export async function startTracing(
  kind: TracedProcess,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ on: boolean; shutdown: () => Promise<void> }> {
  const settings = tracingSettings(env);
  if (!settings) return { on: false, shutdown: () => Promise.resolve() };
  if (runtime) throw new Error('tracing is already started');
  // The loader hook first: Express and pg are ES-module imports, patched only if the hook sees
  // them load. In-thread (module.registerHooks) and limited to the instrumented packages.
  const { register } = await import('import-in-the-middle/register-hooks.mjs');
  register({ include: INSTRUMENTED_MODULES });
  const { startTracingSdk } = await import('./tracing-sdk.ts');
  const started = startTracingSdk(settings, kind, env);
  runtime = started;
  return {
    on: true,
    shutdown: async () => {
      runtime = undefined;
      await started.shutdown();
    },
  };
}

export function tracingOn(): boolean {
  return runtime !== undefined;
}

/** The Temporal client's interceptors (a workflow start carries the caller's span); none when off. */
export function temporalClientInterceptors(): ClientInterceptors | undefined {
  return runtime?.temporalClient;
}

/**
 * The worker's activity interceptors and the sink its workflows export spans through; none when
 * off. (The workflow interceptors are bundled: app/worker.ts.)
 */
export function temporalWorkerTracing(): TracingRuntime['temporalWorker'] | undefined {
  return runtime?.temporalWorker;
}

function activeSpan() {
  const span = trace.getSpanContext(context.active());
  return span && trace.isSpanContextValid(span) ? span : undefined;
}

/**
 * Runs an outgoing POST (a webhook delivery attempt's, a ping's) in a span that starts a trace of
 * its own, and gives `send` the `traceparent` naming it for the receiver. The POST never names the
 * trace it was sent from: the deliveries of one write to several channels would otherwise carry
 * one trace id, which the channels could compare to link their own ids of the write (docs/
 * decisions.md "Tracing"). The operator still goes from the write to each POST: the active span
 * (the attempt's) links to the POST's span, and the POST's span back to it; the links are in the
 * exported spans, never in the request. `outcome` says what the answer was (attributes, and
 * whether it failed). With tracing off `send` gets no header.
 */
export async function inOwnTrace<T>(
  name: string,
  attributes: Attributes,
  send: (headers: Record<string, string>) => Promise<T>,
  outcome: (result: T) => SpanOutcome,
): Promise<T> {
  if (!runtime) return send({});
  const from = trace.getActiveSpan();
  const links: Link[] = from && trace.isSpanContextValid(from.spanContext()) ? [{ context: from.spanContext() }] : [];
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, root: true, attributes, links });
  from?.addLink({ context: span.spanContext() });
  return settled(span, () => send({ traceparent: formatTraceparent(span.spanContext()) }), outcome);
}

/** What a span says of its work's result when it is over. */
export interface SpanOutcome {
  attributes: Attributes;
  /** The work failed (the span's status ERROR). */
  failed: boolean;
}

/**
 * Runs a delivery attempt under a span of its own, `name`, which says how it went: `outcome` of
 * the result gives its attributes and whether it failed (status ERROR); a throw is recorded as an
 * error too. The span is a child of the active one (the attempt activity's, which the Temporal
 * interceptor always closes as OK, a failed POST being the activity's result and not its
 * failure), and it is never made active: what the attempt does (its statements, the POST's link)
 * stays under the activity's span. With no span recording (tracing off, or not sampled) `work`
 * simply runs.
 */
export async function inAttemptSpan<T>(
  name: string,
  work: () => Promise<T>,
  outcome: (result: T) => SpanOutcome,
): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return work();
  return settled(tracer().startSpan(name, { kind: SpanKind.INTERNAL }), work, outcome);
}

/** `trace_id` and `span_id` of the active span for a log line; empty without one. */
export function traceLogFields(): Record<string, string> {
  const span = activeSpan();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

const tracer = () => trace.getTracer('distribution-service');

/**
 * Runs `work` in a span of its own whose parent is the stored `traceparent` (a write's, kept with
 * its event): what `work` starts joins the write's trace. The span the caller runs in (the
 * dispatcher's) becomes a link, so each trace leads to the other. Without a stored parent the span
 * is the caller's child; with tracing off `work` simply runs.
 */
export async function inStoredTrace<T>(
  traceparent: string | null,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!runtime) return work();
  const parent = parseTraceparent(traceparent);
  const caller = activeSpan();
  const links: Link[] = parent && caller ? [{ context: caller }] : [];
  const parentContext = parent ? trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true }) : context.active();
  return tracer().startActiveSpan(name, { attributes, links }, parentContext, (span) => settled(span, work));
}

/**
 * `work`'s result; a failure is recorded on `span` (its type only is exported: infra/span-redaction.ts),
 * and so is what `outcome` says of a result. Ends `span`.
 */
async function settled<T>(span: Span, work: () => Promise<T>, outcome?: (result: T) => SpanOutcome): Promise<T> {
  try {
    const result = await work();
    if (outcome) {
      const { attributes, failed } = outcome(result);
      span.setAttributes(attributes);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
