import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker, type WorkflowBundle } from '@temporalio/worker';
import { beforeAll, expect, test } from 'vitest';
import { TRACING_INTERCEPTORS_PATH, WORKFLOWS_PATH } from '../../app/worker.ts';
import { workflowSpanSink } from '../../infra/tracing-sdk.ts';
import { eventsCommittedSignal } from '../../workflows/definitions.ts';
import type { eventDispatch } from '../../workflows/event-dispatch.ts';
import type { DeliveryInput, webhookDelivery } from '../../workflows/webhook-delivery.ts';
import { HISTORIES_DIR, timeSkippingEnvironment } from '../support/time-skipping.ts';
import { NO_CACHE } from '../support/worker-tuning.ts';

// A worker with tracing on runs the bundle with the OpenTelemetry workflow interceptors in it
// (app/worker.ts, npm run build:workflows). Turning tracing on or off must not break a running
// workflow: each history replays on either bundle.

let plain: WorkflowBundle;
let traced: WorkflowBundle;
beforeAll(async () => {
  plain = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  traced = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [TRACING_INTERCEPTORS_PATH],
  });
}, 180_000);

/** The sink a traced bundle calls; replay drops its calls, but it must be there. */
const quietSink = () => workflowSpanSink([], resourceFromAttributes({}));

test('committed workflow histories, recorded without tracing, replay on the traced bundle', async () => {
  const files = (await readdir(HISTORIES_DIR)).filter((f) => f.endsWith('.json')).sort();
  expect(files.length).toBeGreaterThan(0);
  const histories = await Promise.all(
    files.map(async (file) => ({
      workflowId: path.basename(file, '.json'),
      history: historyFromJSON(JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'))),
    })),
  );
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: traced, sinks: quietSink() }, histories)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
});

test('a delivery and the dispatcher run traced export their workflow spans, and their histories replay on either bundle', async () => {
  const env = await timeSkippingEnvironment();
  const exporter = new InMemorySpanExporter();
  const taskQueue = 'tracing-replay';
  let attempts = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: traced,
    sinks: workflowSpanSink(
      [new SimpleSpanProcessor({ exporter })],
      resourceFromAttributes({ 'service.name': 'test' }),
    ),
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
  const input: DeliveryInput = {
    deliveryId: 'dlv_t',
    endpointId: 'whe_t',
    eventId: 'evt_t',
    eventType: 'property.updated',
    channel: 'partner',
    attempts: 'local',
  };
  const histories = await worker.runUntil(async () => {
    const delivery = await env.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      workflowId: 'webhook-delivery:whe_t:evt_t',
      taskQueue,
      args: [input],
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

  for (const [bundle, options] of [
    ['plain', { workflowBundle: plain }],
    ['traced', { workflowBundle: traced, sinks: quietSink() }],
  ] as const) {
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(options, histories))
      if (result.error) failures.push(`${bundle} ${result.workflowId}: ${String(result.error)}`);
    expect(failures).toEqual([]);
  }
});
