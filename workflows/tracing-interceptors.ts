import { ApplicationFailure, ApplicationFailureCategory, type Headers } from '@temporalio/common';
import {
  ContinueAsNew,
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
import {
  active,
  contextStorage,
  disableContext,
  extractContextFromHeaders,
  headersWithContext,
  startActiveSpan,
  STATUS,
  type TraceContext,
  type WorkflowSpan,
} from './tracing-spans.ts';

/**
 * The workflows' OpenTelemetry interceptors: the spans, headers and awaits of
 * `@temporalio/interceptors-opentelemetry`'s workflow interceptors (1.24), without OpenTelemetry
 * in the sandbox.
 *
 * Each workflow runs its modules afresh, and the package's interceptors built OpenTelemetry's API,
 * core and trace SDK, a tracer provider, a context manager and a span processor for every one:
 * most of what the interceptors cost a first-attempt delivery (docs/decisions.md "One workflow
 * code path"). The spans here are workflows/tracing-spans.ts's plain records.
 *
 * What must not move is where a workflow's commands fall: every interceptor below has the
 * package's async functions and awaits one for one, and asks the same SDK flags at the same
 * points, so a history either code recorded replays on the other (`test/workflows/replay.test.ts`
 * replays histories the package's interceptors recorded, traced and plain). Sampling is the
 * package's default, parent-based: a span is recorded under a sampled parent or none. Propagation
 * is W3C trace context, `traceparent` and `tracestate`, with a `baggage` header passed on as
 * received.
 */

const UPDATE_ID_ATTRIBUTE = 'temporalUpdateId';

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

/**
 * The package's outbound wrapper: a span, and the command sent with it active in its headers.
 * It returns `instrument`'s own promise, so its callers' awaits are the package's.
 */
function withContextHeaders<I extends { headers: Headers }, R>(
  spanName: string,
  input: I,
  next: (input: I) => Promise<R>,
  acceptableErrors?: ErrorFilter,
): Promise<R> {
  return instrument({
    spanName,
    fn: async () => {
      const headers = headersWithContext(input.headers);
      if (!hasFlag(SdkFlags.OpenTelemetryInterceporsAvoidsExtraYields)) await Promise.resolve();
      return next({ ...input, headers });
    },
    ...(acceptableErrors ? { acceptableErrors } : {}),
  });
}

class TracingOutbound implements WorkflowOutboundCallsInterceptor {
  async scheduleActivity(...[input, next]: Parameters<Outbound['scheduleActivity']>) {
    return await withContextHeaders(`StartActivity:${input.activityType}`, input, next);
  }

  async scheduleLocalActivity(...[input, next]: Parameters<Outbound['scheduleLocalActivity']>) {
    if (!hasFlag(SdkFlags.OpenTelemetryInterceptorsTracesLocalActivities)) return next(input);
    return await withContextHeaders(`StartActivity:${input.activityType}`, input, next);
  }

  async startChildWorkflowExecution(...[input, next]: Parameters<Outbound['startChildWorkflowExecution']>) {
    return await withContextHeaders(`StartChildWorkflow:${input.workflowType}`, input, next);
  }

  async continueAsNew(...[input, next]: Parameters<Outbound['continueAsNew']>) {
    return await withContextHeaders(`ContinueAsNew:${input.options.workflowType}`, input, next, isContinueAsNew);
  }

  async signalWorkflow(...[input, next]: Parameters<Outbound['signalWorkflow']>) {
    return await withContextHeaders(`SignalWorkflow:${input.signalName}`, input, next);
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
    disableContext();
    next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  return { inbound: [new TracingInbound()], outbound: [new TracingOutbound()], internals: [new TracingInternals()] };
};
