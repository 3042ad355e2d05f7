/**
 * `npm run chaos:churn`: the chaos run's checker pointed at the sandbox churn
 * (scripts/chaos/churn-run.ts). A generated catalogue, the churn at `--rate` changes a second for
 * `--minutes`, a channel syncing through GET /events and webhook endpoints (`--endpoints`); prints the
 * verdict (commit order as the channel saw it, deliveries as the receiver saw them) and exits 1
 * on any fault.
 *
 * Options: --minutes (5), --rate (10), --properties (200), --workers (1), --endpoints (3: `*`,
 * `property.*`, `availability.updated`; fewer take the first), --seed (1),
 * --settle-seconds (600), --keep (keep the run's directory with every process's log).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runChurnChaos } from './churn-run.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    rate: { type: 'string', default: '10' },
    properties: { type: 'string', default: '200' },
    workers: { type: 'string', default: '1' },
    endpoints: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    'settle-seconds': { type: 'string', default: '600' },
    keep: { type: 'boolean', default: false },
  },
});

function number(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${name}: from ${min} to ${max}`);
  return value;
}

const report = await runChurnChaos({
  minutes: number('minutes', values.minutes, 0.1, 24 * 60),
  rate: number('rate', values.rate, 0.1, 1000),
  properties: number('properties', values.properties, 1, 100_000),
  workers: number('workers', values.workers, 1, 4),
  endpoints: number('endpoints', values.endpoints, 1, 3),
  seed: number('seed', values.seed, 0, 2 ** 31 - 1),
  settleMs: number('settle-seconds', values['settle-seconds'], 10, 86_400) * 1000,
  keep: values.keep,
  log: (line) => process.stderr.write(`[chaos:churn ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
});
const { commitOrder, deliveries } = report;
const faults = {
  lost: deliveries.lost,
  unexpected: deliveries.unexpected,
  idMismatches: deliveries.idMismatches,
  sharedIds: deliveries.sharedIds,
  unverified: deliveries.unverified,
  missedByPoller: commitOrder.missedByPoller,
  reordered: commitOrder.reordered,
  repeated: commitOrder.repeated,
  versionRegressions: commitOrder.versionRegressions,
  crashed: report.crashed.length,
};
const failed = Object.values(faults).some((count) => count > 0);
const cpus = os.cpus();
console.log(
  JSON.stringify(
    {
      verdict: failed ? 'FAIL' : 'PASS',
      faults,
      machine: { cpu: cpus[0]?.model, cores: cpus.length, node: process.version },
      ...report,
      crashed: report.crashed.map((c) => c.split('\n')[0]),
    },
    null,
    2,
  ),
);
for (const crash of report.crashed) process.stderr.write(`\n${crash}\n`);
process.exitCode = failed ? 1 : 0;
