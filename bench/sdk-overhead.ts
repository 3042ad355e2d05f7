/**
 * `npm run bench:sdk-overhead`: what two fixed costs of the Temporal SDK's workflow sandbox cost a
 * worker's workflow code, neither of which a worker option turns off.
 *
 * - **The promise hook.** For the operators' stack-trace query the SDK hooks every promise a
 *   workflow makes: it captures a stack, maps it through the bundle's source map and files it.
 * - **The watchdog.** The SDK enters the sandbox's V8 context with an execution timeout (its
 *   deadlock detection: 5 s, an internal option), several times a workflow task, and Node
 *   enforces a `vm` timeout with a thread of its own, created and joined on every entry
 *   (nodejs/node#47739 is the open change to keep one per thread).
 *
 * It replays one committed history (BENCH_HISTORY, default a first attempt that delivers: one
 * workflow task) BENCH_REPLAYS times a round on the worker's code, four rounds of each variant in
 * turn: the SDK as it is, its hook stopped, its entries made without the timeout, and both, and
 * prints the process's CPU and the elapsed time per replay of each, and how many times a replay
 * enters the context. The service keeps both (docs/benchmarks.md "What the SDK's sandbox costs a
 * delivery"); this bench measures what switches would save.
 *
 * The workflows run on this thread (TEMPORAL_DEBUG, the SDK's debug mode: one thread, its timeout
 * the largest a `vm` takes), where the bench can reach the hook and the context's entries; a
 * worker runs them in a thread of its own with the same hook and a 5-second timeout.
 * `globalHandlers` is the SDK's internal module, not its API: a bench may lean on it, the service
 * does not.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import vm from 'node:vm';
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

/** Every entry into a context counted; with `watchdog` false, made without its timeout. */
let watchdog = true;
let entries = 0;
const { runInContext } = vm.Script.prototype as { runInContext: (this: vm.Script, ...args: unknown[]) => unknown };
vm.Script.prototype.runInContext = function (this: vm.Script, context: vm.Context, options?: vm.RunningScriptOptions) {
  entries += 1;
  return runInContext.call(this, context, watchdog ? options : { ...options, timeout: undefined });
} as vm.Script['runInContext'];

Runtime.install({ logger: new DefaultLogger('ERROR') });
const historyPath = path.resolve(import.meta.dirname, '../test/histories', HISTORY);
const history = historyFromJSON(JSON.parse(await readFile(historyPath, 'utf8')));
const bundle = await bundleWorkflowCode({ ...WORKFLOW_CODE, logger: new DefaultLogger('ERROR') });

const variants = {
  as_the_sdk_runs: { hook: true, watchdog: true },
  without_hook: { hook: false, watchdog: true },
  without_watchdog: { hook: true, watchdog: false },
  without_both: { hook: false, watchdog: false },
};
type Variant = keyof typeof variants;

async function replays(variant: Variant): Promise<ReplayCost> {
  if (variants[variant].hook) hooks.setPromiseHook();
  else hooks.stopPromiseHook();
  watchdog = variants[variant].watchdog;
  return replayCost(bundle, [history], REPLAYS);
}

// The first replay installs the hook (the SDK does, once per thread); a warm-up of each, then the rounds.
const names = Object.keys(variants) as Variant[];
for (const variant of names) await replays(variant);
entries = 0;
await replays('as_the_sdk_runs');
const entriesPerReplay = entries / REPLAYS;
const rounds = Object.fromEntries(names.map((name) => [name, [] as ReplayCost[]])) as Record<Variant, ReplayCost[]>;
for (let round = 0; round < ROUNDS; round += 1)
  for (const variant of names) rounds[variant].push(await replays(variant));
const figure = (name: Variant) => ({
  cpu_ms: Number(spread(rounds[name].map((r) => r.cpuMs)).median.toFixed(3)),
  ms: Number(spread(rounds[name].map((r) => r.ms)).median.toFixed(3)),
});
const perReplay = Object.fromEntries(names.map((name) => [name, figure(name)])) as Record<
  Variant,
  ReturnType<typeof figure>
>;
const share = (name: Variant) => Number((perReplay[name].cpu_ms / perReplay.as_the_sdk_runs.cpu_ms).toFixed(3));
console.log(
  JSON.stringify({
    bench: 'sdk-overhead',
    history: HISTORY,
    replays_per_round: REPLAYS,
    rounds: ROUNDS,
    context_entries_per_replay: entriesPerReplay,
    per_replay: perReplay,
    cpu_of_as_the_sdk_runs: {
      without_hook: share('without_hook'),
      without_watchdog: share('without_watchdog'),
      without_both: share('without_both'),
    },
    machine: machine(),
  }),
);
