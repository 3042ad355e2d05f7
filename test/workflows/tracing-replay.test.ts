import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type WorkflowBundle } from '@temporalio/worker';
import { beforeAll, expect, test } from 'vitest';
import { replayOptions, WORKFLOW_CODE, workflowSinks } from '../../app/worker.ts';
import { workflowSpanSink } from '../../infra/tracing-sdk.ts';
import { eventsCommittedSignal, retryNowUpdate, retryNowUpdateId } from '../../workflows/definitions.ts';
import type { eventDispatch } from '../../workflows/event-dispatch.ts';
import type { DeliveryInput, webhookDelivery } from '../../workflows/webhook-delivery.ts';
import { recordHistory, timeSkippingEnvironment } from '../support/time-skipping.ts';
import { NO_CACHE } from '../support/worker-tuning.ts';

// Tracing is a worker setting, not a version of the workflow code: a worker runs the same code
// (WORKFLOW_CODE, its OpenTelemetry interceptors included) with tracing on or off, and only where
// the workflows' spans go differs (app/worker.ts). So a history recorded with tracing on replays
// with it off, and the reverse: the operator may turn tracing on or off on a running deployment.

const { EventType } = proto.temporal.api.enums.v1;

let code: WorkflowBundle;
beforeAll(async () => {
  code = await bundleWorkflowCode(WORKFLOW_CODE);
}, 180_000);

/** A worker's sinks with tracing on: the workflows' spans to `exporter`. */
const tracedSinks = (exporter: InMemorySpanExporter) =>
  workflowSpanSink([new SimpleSpanProcessor({ exporter })], resourceFromAttributes({ 'service.name': 'test' }));

const INPUT: DeliveryInput = {
  deliveryId: 'dlv_t',
  endpointId: 'whe_t',
  eventId: 'evt_t',
  eventType: 'property.updated',
  channel: 'partner',
  attempts: 'local',
  state: 'always',
};

/**
 * A delivery whose first attempt fails and whose retry an operator hurries with `retryNow`, on a
 * worker with tracing `on` or off (each task replays the history so far, as after a restart).
 */
async function hurriedDelivery(tracing: 'on' | 'off', exporter = new InMemorySpanExporter()): Promise<History> {
  const env = await timeSkippingEnvironment();
  const taskQueue = `tracing-${tracing}`;
  let attempts = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: code,
    sinks: tracing === 'on' ? tracedSinks(exporter) : workflowSinks(),
    ...NO_CACHE,
    activities: {
      attemptDelivery: () => {
        attempts += 1;
        return attempts === 1
          ? { outcome: 'failed', statusCode: 500, attempt: 1, error: 'http_status' }
          : { outcome: 'delivered', statusCode: 204, attempt: attempts };
      },
      recordNextAttempt: () => undefined,
    },
  });
  return worker.runUntil(async () => {
    const delivery = await env.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      workflowId: `webhook-delivery:whe_t:evt_${tracing}`,
      taskQueue,
      args: [INPUT],
    });
    await expect
      .poll(async () => ((await delivery.fetchHistory()).events ?? []).some((e) => e.timerStartedEventAttributes), {
        timeout: 10_000,
      })
      .toBe(true);
    const answer = await delivery.executeUpdate(retryNowUpdate, {
      args: [{ attempt: 2 }],
      updateId: retryNowUpdateId(2),
    });
    expect(answer.result).toMatchObject({ outcome: 'delivered', statusCode: 204, state: 'delivered' });
    expect(await delivery.result()).toBe('delivered');
    await recordHistory(delivery, `webhook-delivery-hurried-tracing-${tracing}`);
    return delivery.fetchHistory();
  });
}

const eventTypes = (history: History) => (history.events ?? []).map((event) => String(event.eventType));

test('a delivery hurried by retryNow records the same events with tracing on and off, and each history replays with tracing the other way', async () => {
  const exporter = new InMemorySpanExporter();
  const traced = await hurriedDelivery('on', exporter);
  const plain = await hurriedDelivery('off');
  // Tracing on made spans (the Update's among them); off, the same code made the same history.
  expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('HandleUpdate:retryNow');
  expect(eventTypes(traced)).toEqual(eventTypes(plain));
  const types = eventTypes(traced);
  // The answer comes after the attempt it reports.
  expect(types.indexOf(String(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED))).toBeGreaterThan(
    types.lastIndexOf(String(EventType.EVENT_TYPE_MARKER_RECORDED)),
  );
  expect(types.indexOf(String(EventType.EVENT_TYPE_TIMER_CANCELED))).toBeGreaterThan(
    types.indexOf(String(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)),
  );

  for (const [recorded, history, replayedWith] of [
    ['tracing on', traced, { workflowBundle: code, sinks: workflowSinks() }],
    ['tracing off', plain, { workflowBundle: code, sinks: tracedSinks(new InMemorySpanExporter()) }],
  ] as const) {
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(replayedWith, [{ workflowId: recorded, history }]))
      if (result.error) failures.push(`recorded with ${recorded}: ${String(result.error)}`);
    expect(failures).toEqual([]);
  }
});

test("the worker's replay options run the same workflow code as its worker", () => {
  // npm run replay and every test worker take the code from here: the interceptors are in it.
  expect(replayOptions()).toMatchObject({
    workflowsPath: WORKFLOW_CODE.workflowsPath,
    interceptors: { workflowModules: WORKFLOW_CODE.workflowInterceptorModules },
  });
});

test('a delivery and the dispatcher run traced export their workflow spans, and their histories replay with tracing off', async () => {
  const env = await timeSkippingEnvironment();
  const exporter = new InMemorySpanExporter();
  const taskQueue = 'tracing-replay';
  let attempts = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: code,
    sinks: tracedSinks(exporter),
    // No cache: every task replays the history so far, as after a worker restart.
    ...NO_CACHE,
    activities: {
      // One failed attempt (a retry on a timer), then delivered.
      attemptDelivery: () => {
        attempts += 1;
        return {
          outcome: attempts === 1 ? 'failed' : 'delivered',
          statusCode: attempts === 1 ? 500 : 204,
          attempt: attempts,
        };
      },
      recordNextAttempt: () => undefined,
      dispatchEvents: () => ({ started: 0, more: false }),
    },
  });
  const histories = await worker.runUntil(async () => {
    const delivery = await env.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      workflowId: 'webhook-delivery:whe_t:evt_t',
      taskQueue,
      args: [{ ...INPUT, state: undefined }],
    });
    expect(await delivery.result()).toBe('delivered');
    const dispatcher = await env.client.workflow.signalWithStart<typeof eventDispatch, []>('eventDispatch', {
      workflowId: 'event-dispatch:tracing-replay',
      taskQueue,
      args: [{ pollSeconds: 30, dispatch: 'local' }],
      signal: eventsCommittedSignal,
      signalArgs: [],
    });
    // A poll after the wake, then another signal while it waits.
    await env.sleep(31_000);
    await dispatcher.signal(eventsCommittedSignal);
    await env.sleep(1_000);
    await dispatcher.terminate('enough');
    return [
      { workflowId: delivery.workflowId, history: await delivery.fetchHistory() },
      { workflowId: dispatcher.workflowId, history: await dispatcher.fetchHistory() },
    ];
  });
  expect(attempts).toBe(2);

  // The workflow's spans, out of the sandbox through the sink, each parented within the run.
  const spans = exporter.getFinishedSpans();
  const run = spans.find((s) => s.name === 'RunWorkflow:webhookDelivery');
  expect(run, spans.map((s) => s.name).join(', ')).toBeDefined();
  expect(run!.attributes).toMatchObject({
    temporalWorkflowId: 'webhook-delivery:whe_t:evt_t',
    temporalTaskQueue: taskQueue,
  });
  const starts = spans.filter((s) => s.name === 'StartActivity:attemptDelivery');
  expect(starts).toHaveLength(2);
  for (const start of starts) {
    expect(start.spanContext().traceId).toBe(run!.spanContext().traceId);
    expect(start.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
    expect(start.instrumentationScope.name).toBe('@temporalio/interceptor-workflow');
  }
  expect(spans.filter((s) => s.name === 'HandleSignal:eventsCommitted').length).toBeGreaterThanOrEqual(1);

  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: code, sinks: workflowSinks() }, histories))
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  expect(failures).toEqual([]);
});
