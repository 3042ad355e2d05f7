import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * The OpenTelemetry workflow interceptors of the traced workflow bundle (infra/tracing.ts,
 * `npm run build:workflows`), not part of the plain one.
 *
 * Unlike the package's own module, span ids here do not come from `Math.random`: in a workflow
 * that is the run's deterministic random stream, so each span would shift the numbers the
 * workflow itself draws (a delivery's retry jitter), and a history recorded without tracing would
 * no longer replay with it, nor one recorded with it without (a query, never replayed, would shift
 * them too). The ids come from a stream of their own, seeded by the run id and kept per workflow:
 * a replay makes the same ids again, so spans begun before a worker restart still join up.
 */

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

const runIds = {
  generateTraceId: () => hexId(32),
  generateSpanId: () => hexId(16),
};

/** The interceptors' tracer (one, shared by the package's interceptors) takes its ids from `runIds`. */
function useRunIds(interceptor: object): void {
  const tracer = (interceptor as { tracer?: { _idGenerator?: unknown } }).tracer;
  if (!tracer || !('_idGenerator' in tracer))
    throw new Error('@temporalio/interceptors-opentelemetry: its tracer has no id generator to replace');
  tracer._idGenerator = runIds;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const inbound = new OpenTelemetryInboundInterceptor();
  const outbound = new OpenTelemetryOutboundInterceptor();
  useRunIds(inbound);
  useRunIds(outbound);
  return { inbound: [inbound], outbound: [outbound], internals: [new OpenTelemetryInternalsInterceptor()] };
};
