import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { DEFAULT_LIMIT, DEFAULT_QUERY, MAX_LIMIT, parseReplayArguments } from '../../app/replay.ts';
import { WORKFLOW_CODE } from '../../app/worker.ts';
import { systemClock } from '../../domain/clock.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';
import { startReceiver } from '../support/receiver.ts';

// `npm run replay` as an operator runs it before a deploy: a real process against the run's
// Temporal dev server, replaying histories the service's own worker wrote there.

let temporal: Client;
let taskQueue: string;
/** The id of a delivery the worker completed: its history is real. */
let deliveryId: string;
let bundleDir: string;

const replay = (args: string[]) =>
  runNode(
    'scripts/replay.ts',
    args,
    { TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: 'default', LOG_LEVEL: 'warn' },
    120_000,
  );

/** Bundles a workflows module into a file, as `npm run build:workflows` does. */
async function bundleFile(
  workflows: { workflowsPath: string; workflowInterceptorModules?: string[] },
  name: string,
): Promise<string> {
  const { code } = await bundleWorkflowCode({ ...workflows, logger: new DefaultLogger('WARN') });
  const file = path.join(bundleDir, name);
  await writeFile(file, code);
  return file;
}

async function waitUntilListed(query: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await temporal.workflow.count(query)).count === 0) {
    if (Date.now() > deadline) throw new Error(`nothing matched ${query} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  bundleDir = await mkdtemp(path.join(os.tmpdir(), 'svc-replay-'));
  const receiver = await startReceiver();
  const bed = await apiTestBed({ clock: systemClock, receiver, taskQueue: 'replay-cli', worker: true });
  temporal = bed.temporal;
  taskQueue = bed.taskQueue!;
  const { channel, key } = await channelWithKey(bed.ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
  const created = await bed.api.call('POST', '/api/v1/distribution/webhooks', {
    key: key.key,
    body: { url: `${receiver.url}/replay`, events: ['property.*'] },
  });
  expect(created.status, created.text).toBe(201);
  await bed.host.organization('rp-org');
  await bed.host.owner('rp-own', { organization: 'rp-org' });
  await bed.host.location('rp-loc', { organization: 'rp-org', owner: 'rp-own' });
  await bed.host.property('rp-p', { location: 'rp-loc', owner: 'rp-own' });
  await bed.host.distribute('rp-p', [channel.name]);
  const [request] = await receiver.waitFor(1, 30_000);
  deliveryId = workflowIds.webhookDelivery(created.json.id as string, request!.headers['webhook-id']!);
  await waitUntilListed(`WorkflowId = '${deliveryId}' AND ExecutionStatus = 'Completed'`);
});

describe('npm run replay', () => {
  test("replays the task queue's workflows against this checkout's code: one ok line each, a summary, exit 0", async () => {
    const query = `TaskQueue = '${taskQueue}'`;
    const listed = (await temporal.workflow.count(query)).count;
    const run = await replay(['--query', query]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain(`ok   webhookDelivery ${deliveryId} ${await runIdOf(deliveryId)}`);
    expect(lines.some((line) => line.startsWith(`ok   eventDispatch ${workflowIds.eventDispatch(taskQueue)} `))).toBe(
      true,
    );
    expect(lines.slice(0, -1).every((line) => line.startsWith('ok   '))).toBe(true);
    expect(lines).toHaveLength(listed + 1);
    expect(lines.at(-1)).toBe(
      `replayed ${listed} of ${listed} workflow(s) matching ${JSON.stringify(query)} (limit ${DEFAULT_LIMIT}): ${listed} ok, 0 failed`,
    );
  });

  test('--limit bounds how many are fetched and replayed', async () => {
    const query = `TaskQueue = '${taskQueue}'`;
    expect((await temporal.workflow.count(query)).count).toBeGreaterThan(1);
    const run = await replay([
      '--query',
      query,
      '--limit',
      '1',
      '--bundle',
      await bundleFile(WORKFLOW_CODE, 'real.js'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ok {3}\w+ /);
    expect(lines[1]).toMatch(/^replayed 1 of 1 workflow\(s\) .* \(limit 1\): 1 ok, 0 failed$/);
  });

  test('against a bundle whose webhookDelivery differs from its history: FAIL naming the workflow, exit 1', async () => {
    const divergent = await bundleFile(
      { workflowsPath: path.resolve(import.meta.dirname, '../support/replay/divergent-workflows.ts') },
      'divergent.js',
    );
    const run = await replay(['--query', `WorkflowId = '${deliveryId}'`, '--bundle', divergent]);
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^FAIL webhookDelivery ${escape(deliveryId)} ${await runIdOf(deliveryId)}: nondeterminism: \\[TMPRL1100\\] Nondeterminism error: .+`,
      ),
    );
    expect(lines[1]).toMatch(/: 0 ok, 1 failed$/);
  });

  test('a query with a syntax error is a usage error (exit 2), not a pass', async () => {
    const run = await replay(['--query', 'WorkflowType = ']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^replay: Failed to list workflows: .+/);
    expect(run.stdout).toBe('');
  });
});

describe('its arguments', () => {
  test('default to running workflows, 100 of them, and this checkout; --limit runs from 1 to 1000', () => {
    expect(parseReplayArguments([])).toEqual({ query: DEFAULT_QUERY, limit: DEFAULT_LIMIT, bundle: undefined });
    expect(parseReplayArguments(['--limit', String(MAX_LIMIT), '--query', "WorkflowType = 'horizonRoll'"])).toEqual({
      query: "WorkflowType = 'horizonRoll'",
      limit: MAX_LIMIT,
      bundle: undefined,
    });
    for (const limit of ['0', String(MAX_LIMIT + 1), '-5', '2.5', 'ten', ''])
      expect(() => parseReplayArguments(['--limit', limit]), limit).toThrow(/--limit/);
    expect(() => parseReplayArguments(['--query', '  '])).toThrow(/--query/);
    expect(() => parseReplayArguments(['--namespace', 'x'])).toThrow();
  });
});

async function runIdOf(workflowId: string): Promise<string> {
  return (await temporal.workflow.getHandle(workflowId).describe()).runId;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
