/**
 * `npm run bench:workflow-code`: what the OpenTelemetry workflow interceptors, part of every
 * worker's workflow code whatever the tracing setting (app/worker.ts `WORKFLOW_CODE`), cost a
 * worker with tracing off. Replays the committed webhook-delivery histories (test/histories), each
 * REPLAYS times, on the worker's code (spans made, then dropped by its sink) and on the workflows
 * alone (the plain bundle of earlier releases), alternating, and prints the replay time per
 * history of each and their ratio. A replay runs every workflow task of the history again, the
 * CPU a worker spends in its sandbox: what the interceptors add to it is what they add to a run.
 * BENCH_REPLAYS (default 40) replays of each history a round; BENCH_HISTORY (say
 * `webhook-delivery-local-first.json`, a first attempt that delivers: one workflow task) replays
 * that history alone.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { WORKFLOW_CODE } from '../app/worker.ts';
import { machine } from './machine.ts';
import { replayCost } from './replay-cost.ts';
import { spread } from './runs-merge.ts';

const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 40);
const HISTORIES_DIR = path.resolve(import.meta.dirname, '../test/histories');

Runtime.install({ logger: new DefaultLogger('ERROR') });
// Not the history the traced bundle of earlier releases wrote: the workflows alone cannot replay it
// (that is why the interceptors are in every worker's code).
const only = process.env.BENCH_HISTORY;
const files = (await readdir(HISTORIES_DIR)).filter((f) =>
  only ? f === only : f.startsWith('webhook-delivery-') && f.endsWith('.json') && !f.includes('traced-hurried-before'),
);
if (files.length === 0) throw new Error(`no history ${only ?? 'webhook-delivery-*.json'} in ${HISTORIES_DIR}`);
const histories = await Promise.all(
  files.map(async (file) => historyFromJSON(JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8')))),
);
const quiet = { logger: new DefaultLogger('ERROR') };
const code: Record<'with_interceptors' | 'workflows_alone', WorkflowBundle> = {
  with_interceptors: await bundleWorkflowCode({ ...WORKFLOW_CODE, ...quiet }),
  workflows_alone: await bundleWorkflowCode({ workflowsPath: WORKFLOW_CODE.workflowsPath, ...quiet }),
};

const replayAll = async (bundle: WorkflowBundle) => (await replayCost(bundle, histories, REPLAYS)).ms;

// A warm-up of each, then three alternating rounds; the median round of each.
await replayAll(code.with_interceptors);
await replayAll(code.workflows_alone);
const rounds: Record<keyof typeof code, number[]> = { with_interceptors: [], workflows_alone: [] };
for (let round = 0; round < 3; round += 1)
  for (const name of Object.keys(code) as (keyof typeof code)[]) rounds[name].push(await replayAll(code[name]));
const withMs = spread(rounds.with_interceptors).median;
const aloneMs = spread(rounds.workflows_alone).median;
console.log(
  JSON.stringify({
    bench: 'workflow-code',
    histories: histories.length,
    replays_per_round: REPLAYS * histories.length,
    replay_ms_per_history: {
      with_interceptors: Number(withMs.toFixed(3)),
      workflows_alone: Number(aloneMs.toFixed(3)),
    },
    ratio: Number((withMs / aloneMs).toFixed(3)),
    machine: machine(),
  }),
);
