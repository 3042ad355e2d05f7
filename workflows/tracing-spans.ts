import { type Headers } from '@temporalio/common';
import type {
  OpenTelemetrySinks,
  SerializableSpan,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import { AsyncLocalStorage, defaultPayloadConverter, proxySinks, workflowInfo } from '@temporalio/workflow';

/**
 * The workflows' spans and their context (workflows/tracing-interceptors.ts makes them): a span
 * is a plain record, the active one kept in the sandbox's `AsyncLocalStorage` as the package's
 * context manager keeps it; ids, sampling and W3C propagation as the package's tracer and
 * propagators make them; an ended span leaves by the package's sink in its serialisable shape
 * (read by `workflowSpanSink` in infra/tracing-sdk.ts, or dropped with tracing off).
 *
 * Span ids do not come from `Math.random`: in a workflow that is the run's deterministic random
 * stream, so each span would shift the numbers the workflow itself draws (a delivery's retry
 * jitter). They come from a stream of their own, seeded by the run id and kept per workflow: a
 * replay makes the same ids again, so spans begun before a worker restart still join up.
 */

/** The header the package's client, activity and workflow interceptors carry the context in. */
const TRACE_HEADER = '_tracer-data';
const SCOPE = { name: '@temporalio/interceptor-workflow' };
const SAMPLED = 1;
export const STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;
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
export interface TraceContext {
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

export function contextStorage(): Storage<TraceContext> {
  storage ??= new AsyncLocalStorage<TraceContext>();
  return storage;
}

export const active = (): TraceContext => contextStorage().getStore() ?? ROOT;

/** W3C trace context's `traceparent`: version (not ff), trace id, parent id, flags; version 00 has no more. */
const TRACE_PARENT = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

function header(carrier: unknown, name: string): string | undefined {
  if (carrier === null || typeof carrier !== 'object') return undefined;
  const value = (carrier as Record<string, unknown>)[name];
  const joined = Array.isArray(value) ? value.join(',') : value;
  return typeof joined === 'string' && joined.length > 0 ? joined : undefined;
}

/** The context a carrier names on top of `base`, as the W3C trace-context and baggage propagators read it. */
export function extract(base: TraceContext, carrier: unknown): TraceContext {
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

export function inject(context: TraceContext): Record<string, string> {
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
export function extractContextFromHeaders(headers: Headers): TraceContext | undefined {
  const encoded = headers[TRACE_HEADER];
  if (encoded === undefined) return undefined;
  return extract(active(), defaultPayloadConverter.fromPayload(encoded));
}

export function headersWithContext(headers: Headers): Headers {
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
export class WorkflowSpan {
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
export function startActiveSpan<T>(name: string, fn: (span: WorkflowSpan) => T): T {
  const parent = active();
  const span = new WorkflowSpan(name, parent.span);
  return contextStorage().run({ ...parent, span: span.context }, fn, span);
}

/** The end of the workflow: its context store lets go (the package's internals interceptor does the same). */
export function disableContext(): void {
  storage?.disable();
}
