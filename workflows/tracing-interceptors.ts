import { ApplicationFailure, ApplicationFailureCategory, type Headers } from '@temporalio/common';
import type {
  OpenTelemetrySinks,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import {
  AsyncLocalStorage,
  ContinueAsNew,
  defaultPayloadConverter,
  proxySinks,
  workflowInfo,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowInternalsInterceptor,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
// The SDK's own interceptors read these two from the same internal modules: the flags that say,
// per workflow task, which of their awaits a history was recorded with.
import { SdkFlags } from '@temporalio/workflow/lib/flags.js';
import { getActivator } from '@temporalio/workflow/lib/global-attributes.js';

/**
 * The workflows' OpenTelemetry interceptors: the spans, headers and awaits of
 * `@temporalio/interceptors-opentelemetry`'s workflow interceptors (1.24), without OpenTelemetry
 * in the sandbox.
 *
 * Each workflow runs its modules afresh, and the package's interceptors built OpenTelemetry's API,
 * core and trace SDK, a tracer provider, a context manager and a span processor for every one: a
 * third of a first-attempt delivery's workflow time (docs/decisions.md "One workflow code path").
 * Here a span is a plain record, the active one is kept in the sandbox's `AsyncLocalStorage` as the
 * package keeps it, and an ended span leaves by the same sink in the same shape (`SerializableSpan`,
 * read by `workflowSpanSink` in infra/tracing-sdk.ts, or dropped with tracing off).
 *
 * What must not move is where a workflow's commands fall: every interceptor below has the
 * package's async functions and awaits one for one, and asks the same SDK flags at the same
 * points, so a history either code recorded replays on the other (`test/workflows/replay.test.ts`
 * replays histories the package's interceptors recorded, traced and plain). Sampling is the
 * package's default, parent-based: a span is recorded under a sampled parent or none. Propagation
 * is W3C trace context, `traceparent` and `tracestate`, with a `baggage` header passed on as
 * received.
 *
 * Span ids do not come from `Math.random`: in a workflow that is the run's deterministic random
 * stream, so each span would shift the numbers the workflow itself draws (a delivery's retry
 * jitter). They come from a stream of their own, seeded by the run id and kept per workflow: a
 * replay makes the same ids again, so spans begun before a worker restart still join up.
 */

/** The header the package's client, activity and workflow interceptors carry the context in. */
const TRACE_HEADER = '_tracer-data';
const SCOPE = { name: '@temporalio/interceptor-workflow' };
const UPDATE_ID_ATTRIBUTE = 'temporalUpdateId';
const SAMPLED = 1;
const STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;
const INTERNAL_KIND = 0;

// ---- ids ----------------------------------------------------------------------------------------

interface IdStream {
  runId: string;
  state: [number, number, number, number];
}

const STREAM = '__svcTraceIdStream';

/** cyrb128: four 32-bit words from a string (a seed, not a digest). */
function seed(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i += 1) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

/** sfc32: the next 32-bit word of the stream. */
function next(state: [number, number, number, number]): number {
  let [a, b, c, d] = state;
  const t = (((a + b) | 0) + d) | 0;
  d = (d + 1) | 0;
  a = b ^ (b >>> 9);
  b = (c + (c << 3)) | 0;
  c = (c << 21) | (c >>> 11);
  c = (c + t) | 0;
  state[0] = a;
  state[1] = b;
  state[2] = c;
  state[3] = d;
  return t >>> 0;
}

/** The run's stream: on the workflow's own globals, which the worker keeps apart per workflow. */
function stream(): IdStream {
  const globals = globalThis as { [STREAM]?: IdStream };
  const { runId } = workflowInfo();
  let current = globals[STREAM];
  if (current?.runId !== runId) {
    current = { runId, state: seed(`${runId}:trace-ids`) };
    globals[STREAM] = current;
  }
  return current;
}

function hexId(digits: number): string {
  const state = stream().state;
  for (;;) {
    let id = '';
    while (id.length < digits) id += next(state).toString(16).padStart(8, '0');
    if (/[^0]/.test(id)) return id;
  }
}

// ---- context and propagation --------------------------------------------------------------------

interface SpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string;
}

/** What the package's context carried that these interceptors read: the active span and baggage. */
interface TraceContext {
  readonly span?: SpanContext;
  readonly baggage?: string;
}

/** What these interceptors use of the sandbox's `AsyncLocalStorage` (Node's, which workflow code may not import). */
interface Storage<T> {
  getStore(): T | undefined;
  run<R, A extends unknown[]>(store: T, fn: (...args: A) => R, ...args: A): R;
  disable(): void;
}

const ROOT: TraceContext = {};
let storage: Storage<TraceContext> | undefined;

function contextStorage(): Storage<TraceContext> {
  storage ??= new AsyncLocalStorage<TraceContext>();
  return storage;
}

const active = (): TraceContext => contextStorage().getStore() ?? ROOT;

/** W3C trace context's `traceparent`: version (not ff), trace id, parent id, flags; version 00 has no more. */
const TRACE_PARENT = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

function header(carrier: unknown, name: string): string | undefined {
  if (carrier === null || typeof carrier !== 'object') return undefined;
  const value = (carrier as Record<string, unknown>)[name];
  const joined = Array.isArray(value) ? value.join(',') : value;
  return typeof joined === 'string' && joined.length > 0 ? joined : undefined;
}

/** The context a carrier names on top of `base`, as the W3C trace-context and baggage propagators read it. */
function extract(base: TraceContext, carrier: unknown): TraceContext {
  let context = base;
  const parent = TRACE_PARENT.exec(header(carrier, 'traceparent') ?? '');
  if (parent && !(parent[1] === '00' && parent[5])) {
    const traceState = header(carrier, 'tracestate');
    context = {
      ...context,
      span: {
        traceId: parent[2]!,
        spanId: parent[3]!,
        traceFlags: parseInt(parent[4]!, 16),
        ...(traceState === undefined ? {} : { traceState }),
      },
    };
  }
  const baggage = header(carrier, 'baggage');
  return baggage === undefined ? context : { ...context, baggage };
}

function inject(context: TraceContext): Record<string, string> {
  const carrier: Record<string, string> = {};
  const { span, baggage } = context;
  if (span) {
    carrier.traceparent = `00-${span.traceId}-${span.spanId}-0${span.traceFlags.toString(16)}`;
    if (span.traceState !== undefined) carrier.tracestate = span.traceState;
  }
  if (baggage !== undefined) carrier.baggage = baggage;
  return carrier;
}

/** The context the headers carry, on top of the active one; undefined where they carry none. */
function extractContextFromHeaders(headers: Headers): TraceContext | undefined {
  const encoded = headers[TRACE_HEADER];
  if (encoded === undefined) return undefined;
  return extract(active(), defaultPayloadConverter.fromPayload(encoded));
}

function headersWithContext(headers: Headers): Headers {
  return { ...headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(inject(active())) };
}

// ---- spans --------------------------------------------------------------------------------------

type HrTime = [number, number];

function hrTime(epochMillis: number): HrTime {
  return [Math.trunc(epochMillis / 1000), Math.round((epochMillis % 1000) * 1e6)];
}

function duration(start: HrTime, end: HrTime): HrTime {
  let seconds = end[0] - start[0];
  let nanos = end[1] - start[1];
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  return [seconds, nanos];
}

let exporter: OpenTelemetrySinks['exporter'] | undefined;

interface Status {
  code: number;
  message?: string;
}

/** A span as the package's tracer made it: recorded under a sampled parent or none, else only propagated. */
class WorkflowSpan {
  readonly context: SpanContext;
  private readonly recording: boolean;
  private readonly parentSpanId: string | undefined;
  private readonly startTime: HrTime;
  private readonly attributes: Record<string, string> = {};
  private readonly name: string;
  private readonly events: SerializableSpan['events'] = [];
  private status: Status = { code: STATUS.UNSET };
  private ended = false;

  constructor(name: string, parent: SpanContext | undefined) {
    this.name = name;
    // The package's tracer draws the span id first, then a new trace's id.
    const spanId = hexId(16);
    this.recording = parent === undefined || (parent.traceFlags & SAMPLED) === SAMPLED;
    this.context = {
      traceId: parent?.traceId ?? hexId(32),
      spanId,
      traceFlags: this.recording ? SAMPLED : 0,
      ...(parent?.traceState === undefined ? {} : { traceState: parent.traceState }),
    };
    this.parentSpanId = parent?.spanId;
    this.startTime = hrTime(Date.now());
  }

  setAttribute(key: string, value: string): void {
    if (this.recording && !this.ended) this.attributes[key] = value;
  }

  setStatus(status: Status): void {
    if (!this.ended) this.status = { ...status };
  }

  recordException(error: unknown): void {
    if (!this.recording || this.ended) return;
    const attributes: Record<string, string> = {};
    if (typeof error === 'string') attributes['exception.message'] = error;
    else if (error !== null && typeof error === 'object') {
      const { code, name, message, stack } = error as {
        code?: unknown;
        name?: unknown;
        message?: unknown;
        stack?: unknown;
      };
      if ((typeof code === 'string' || typeof code === 'number') && code) attributes['exception.type'] = String(code);
      else if (typeof name === 'string' && name) attributes['exception.type'] = name;
      if (typeof message === 'string' && message) attributes['exception.message'] = message;
      if (typeof stack === 'string' && stack) attributes['exception.stacktrace'] = stack;
    }
    if (attributes['exception.type'] || attributes['exception.message'])
      this.events.push({ name: 'exception', attributes, time: hrTime(Date.now()), droppedAttributesCount: 0 });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.recording) return;
    const endTime = hrTime(Date.now());
    const { traceState, ...spanContext } = this.context;
    exporter ??= proxySinks<OpenTelemetrySinks>().exporter;
    exporter.export([
      {
        name: this.name,
        kind: INTERNAL_KIND,
        spanContext: { ...(traceState === undefined ? {} : { traceState }), ...spanContext },
        ...(this.parentSpanId === undefined ? {} : { parentSpanId: this.parentSpanId }),
        startTime: this.startTime,
        endTime,
        status: this.status,
        attributes: this.attributes,
        links: [],
        events: this.events,
        duration: duration(this.startTime, endTime),
        ended: true,
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
        instrumentationLibrary: SCOPE,
      },
    ]);
  }
}

/** The package's `tracer.startActiveSpan`: `fn` runs at once, with the new span active. */
function startActiveSpan<T>(name: string, fn: (span: WorkflowSpan) => T): T {
  const parent = active();
  const span = new WorkflowSpan(name, parent.span);
  return contextStorage().run({ ...parent, span: span.context }, fn, span);
}

type ErrorFilter = (error: unknown) => boolean;

function maybeAddErrorToSpan(error: unknown, span: WorkflowSpan, acceptableErrors?: ErrorFilter): void {
  if (acceptableErrors === undefined || !acceptableErrors(error)) {
    const benign = error instanceof ApplicationFailure && error.category === ApplicationFailureCategory.BENIGN;
    const message =
      error !== null && typeof (error as { message?: unknown }).message === 'string'
        ? (error as { message: string }).message
        : String(error);
    span.setStatus({ code: benign ? STATUS.UNSET : STATUS.ERROR, message });
    span.recordException(error);
  } else {
    span.setStatus({ code: STATUS.OK });
  }
}

// The awaits below are the package's (lib/instrumentation.js, lib/workflow/index.js), kept one for
// one: each is a turn of the microtask queue, and a turn more or less moves a command (module comment).

async function wrapWithSpan<T>(
  span: WorkflowSpan,
  fn: (span: WorkflowSpan) => T | Promise<T>,
  acceptableErrors?: ErrorFilter,
): Promise<T> {
  try {
    const result = await fn(span);
    span.setStatus({ code: STATUS.OK });
    return result;
  } catch (error) {
    maybeAddErrorToSpan(error, span, acceptableErrors);
    throw error;
  } finally {
    span.end();
  }
}

function wrapWithSpanSync<T>(span: WorkflowSpan, fn: (span: WorkflowSpan) => T, acceptableErrors?: ErrorFilter): T {
  try {
    const result = fn(span);
    span.setStatus({ code: STATUS.OK });
    return result;
  } catch (error) {
    maybeAddErrorToSpan(error, span, acceptableErrors);
    throw error;
  } finally {
    span.end();
  }
}

interface Instrumented<T> {
  spanName: string;
  fn: (span: WorkflowSpan) => T | Promise<T>;
  context?: TraceContext | undefined;
  acceptableErrors?: ErrorFilter;
}

async function instrument<T>({ spanName, fn, context, acceptableErrors }: Instrumented<T>): Promise<T> {
  if (context) {
    return await contextStorage().run(context, async () => {
      return await startActiveSpan(spanName, async (span) => await wrapWithSpan(span, fn, acceptableErrors));
    });
  }
  return await startActiveSpan(spanName, async (span) => await wrapWithSpan(span, fn, acceptableErrors));
}

function instrumentSync<T>({
  spanName,
  fn,
  context,
}: {
  spanName: string;
  fn: (span: WorkflowSpan) => T;
  context?: TraceContext | undefined;
}): T {
  if (context)
    return contextStorage().run(context, () => startActiveSpan(spanName, (span) => wrapWithSpanSync(span, fn)));
  return startActiveSpan(spanName, (span) => wrapWithSpanSync(span, fn));
}

const hasFlag = (flag: (typeof SdkFlags)[keyof typeof SdkFlags]): boolean => getActivator().hasFlag(flag);
const isContinueAsNew = (error: unknown): boolean => error instanceof ContinueAsNew;

class TracingInbound implements WorkflowInboundCallsInterceptor {
  async execute(...[input, next]: Parameters<NonNullable<WorkflowInboundCallsInterceptor['execute']>>) {
    const context = extractContextFromHeaders(input.headers);
    if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
    return await instrument({
      spanName: `RunWorkflow:${workflowInfo().workflowType}`,
      fn: () => next(input),
      context,
      acceptableErrors: isContinueAsNew,
    });
  }

  async handleSignal(...[input, next]: Parameters<NonNullable<WorkflowInboundCallsInterceptor['handleSignal']>>) {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesInboundSignals)) return next(input);
    const context = extractContextFromHeaders(input.headers);
    if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
    return await instrument({ spanName: `HandleSignal:${input.signalName}`, fn: () => next(input), context });
  }

  async handleUpdate(...[input, next]: Parameters<NonNullable<WorkflowInboundCallsInterceptor['handleUpdate']>>) {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    const context = extractContextFromHeaders(input.headers);
    return await instrument({
      spanName: `HandleUpdate:${input.name}`,
      fn: (span) => {
        span.setAttribute(UPDATE_ID_ATTRIBUTE, input.updateId);
        return next(input);
      },
      context,
    });
  }

  validateUpdate(...[input, next]: Parameters<NonNullable<WorkflowInboundCallsInterceptor['validateUpdate']>>) {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    const context = extractContextFromHeaders(input.headers);
    instrumentSync({
      spanName: `ValidateUpdate:${input.name}`,
      fn: (span) => {
        span.setAttribute(UPDATE_ID_ATTRIBUTE, input.updateId);
        return next(input);
      },
      context,
    });
  }

  async handleQuery(...[input, next]: Parameters<NonNullable<WorkflowInboundCallsInterceptor['handleQuery']>>) {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsInstrumentsAllMethods)) return next(input);
    const context = extractContextFromHeaders(input.headers);
    return await instrument({ spanName: `HandleQuery:${input.queryName}`, fn: () => next(input), context });
  }
}

type Outbound = Required<WorkflowOutboundCallsInterceptor>;

class TracingOutbound implements WorkflowOutboundCallsInterceptor {
  async scheduleActivity(...[input, next]: Parameters<Outbound['scheduleActivity']>) {
    return await instrument({
      spanName: `StartActivity:${input.activityType}`,
      fn: async () => {
        const headers = headersWithContext(input.headers);
        if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
        return next({ ...input, headers });
      },
    });
  }

  async scheduleLocalActivity(...[input, next]: Parameters<Outbound['scheduleLocalActivity']>) {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesLocalActivities)) return next(input);
    return await instrument({
      spanName: `StartActivity:${input.activityType}`,
      fn: async () => {
        const headers = headersWithContext(input.headers);
        if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
        return next({ ...input, headers });
      },
    });
  }

  async startChildWorkflowExecution(...[input, next]: Parameters<Outbound['startChildWorkflowExecution']>) {
    return await instrument({
      spanName: `StartChildWorkflow:${input.workflowType}`,
      fn: async () => {
        const headers = headersWithContext(input.headers);
        if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
        return next({ ...input, headers });
      },
    });
  }

  async continueAsNew(...[input, next]: Parameters<Outbound['continueAsNew']>) {
    return await instrument({
      spanName: `ContinueAsNew:${input.options.workflowType}`,
      fn: async () => {
        const headers = headersWithContext(input.headers);
        if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
        return next({ ...input, headers });
      },
      acceptableErrors: isContinueAsNew,
    });
  }

  async signalWorkflow(...[input, next]: Parameters<Outbound['signalWorkflow']>) {
    return await instrument({
      spanName: `SignalWorkflow:${input.signalName}`,
      fn: async () => {
        const headers = headersWithContext(input.headers);
        if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
        return next({ ...input, headers });
      },
    });
  }

  getLogAttributes(...[input, next]: Parameters<Outbound['getLogAttributes']>) {
    const span = active().span;
    if (span === undefined) return next(input);
    return next({
      trace_id: span.traceId,
      span_id: span.spanId,
      trace_flags: `0${span.traceFlags.toString(16)}`,
      ...input,
    });
  }
}

class TracingInternals implements WorkflowInternalsInterceptor {
  // The package's is async and awaits nothing; its promise is dropped, so this one returns none.
  dispose(...[input, next]: Parameters<NonNullable<WorkflowInternalsInterceptor['dispose']>>) {
    storage?.disable();
    next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  contextStorage();
  return { inbound: [new TracingInbound()], outbound: [new TracingOutbound()], internals: [new TracingInternals()] };
};
