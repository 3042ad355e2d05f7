/**
 * `npm run bench:promise-hook`: what the Temporal SDK's promise hook costs a worker's workflow
 * code. For the operators' stack-trace query the SDK hooks every promise a workflow makes: it
 * captures a stack, maps it through the bundle's source map and files it. The SDK has no switch
 * for it, so the worker keeps it (docs/benchmarks.md "Push: against a naive and an empty
 * workflow"); this bench measures what a switch would save. It replays one committed history
 * (BENCH_HISTORY, default a first attempt that delivers: one workflow task) BENCH_REPLAYS times a
 * round on the worker's code, four rounds of each alternately, with the hook as the SDK installs
 * it and with it stopped, and prints the process's CPU and the elapsed time per replay of each.
 *
 * The workflows run on this thread (TEMPORAL_DEBUG, the SDK's debug mode: one thread, no
 * execution limit), where the bench can reach the hook; a worker runs them in a thread of its
 * own with the same hook. `globalHandlers` is the SDK's internal module, not its API: a bench may
 * lean on it, the service does not.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared.js';
import { WORKFLOW_CODE } from '../app/worker.ts';
import { machine } from './machine.ts';
import { replayCost, type ReplayCost } from './replay-cost.ts';
import { spread } from './runs-merge.ts';

process.env.TEMPORAL_DEBUG = '1';
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 150);
const ROUNDS = 4;
const HISTORY = process.env.BENCH_HISTORY ?? 'webhook-delivery-local-first.json';

/** The hook's switches, private in the SDK's types. */
const hooks = globalHandlers as unknown as { setPromiseHook(): void; stopPromiseHook(): void };

Runtime.install({ logger: new DefaultLogger('ERROR') });
const historyPath = path.resolve(import.meta.dirname, '../test/histories', HISTORY);
const history = historyFromJSON(JSON.parse(await readFile(historyPath, 'utf8')));
const bundle = await bundleWorkflowCode({ ...WORKFLOW_CODE, logger: new DefaultLogger('ERROR') });

const replays = () => replayCost(bundle, [history], REPLAYS);

// The first replay installs the hook (the SDK does, once per thread); a warm-up of each, then the rounds.
await replays();
hooks.stopPromiseHook();
await replays();
const rounds = { with_hook: [] as ReplayCost[], without_hook: [] as ReplayCost[] };
for (let round = 0; round < ROUNDS; round += 1) {
  hooks.setPromiseHook();
  rounds.with_hook.push(await replays());
  hooks.stopPromiseHook();
  rounds.without_hook.push(await replays());
}
const figure = (name: keyof typeof rounds) => ({
  cpu_ms: Number(spread(rounds[name].map((r) => r.cpuMs)).median.toFixed(3)),
  ms: Number(spread(rounds[name].map((r) => r.ms)).median.toFixed(3)),
});
const withHook = figure('with_hook');
const withoutHook = figure('without_hook');
console.log(
  JSON.stringify({
    bench: 'promise-hook',
    history: HISTORY,
    replays_per_round: REPLAYS,
    rounds: ROUNDS,
    per_replay: { with_hook: withHook, without_hook: withoutHook },
    without_over_with_cpu: Number((withoutHook.cpu_ms / withHook.cpu_ms).toFixed(3)),
    machine: machine(),
  }),
);
