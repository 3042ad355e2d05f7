/**
 * `npm run chaos`: the service as separate processes (2 API, 2 workers) on a PostgreSQL and a
 * Temporal dev server of its own, through repeated SIGKILLs of workers with attempts in flight and
 * restarts of both servers, while thousands of changes are written; then waits (bounded) until
 * every (endpoint, event) the event log calls for has arrived, and prints what it found.
 *
 * Options (flags, else environment): --changes (CHAOS_CHANGES, 1000), --rounds (CHAOS_ROUNDS, 3),
 * --endpoints (CHAOS_ENDPOINTS, 3), --properties (CHAOS_PROPERTIES, 10), --concurrency
 * (CHAOS_CONCURRENCY, 4), --attempt-delay-ms (CHAOS_ATTEMPT_DELAY_MS, 1000), --deadline-seconds
 * (CHAOS_DEADLINE_SECONDS, 1800), --keep (keep the run's directory with every process's log).
 * Exits 1 when a pair was lost, a process crashed or an id or signature was wrong.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runChaos } from './chaos/scenario.ts';

const { values } = parseArgs({
  options: {
    changes: { type: 'string' },
    rounds: { type: 'string' },
    endpoints: { type: 'string' },
    properties: { type: 'string' },
    concurrency: { type: 'string' },
    'attempt-delay-ms': { type: 'string' },
    'deadline-seconds': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

function option(flag: string | undefined, variable: string, fallback: number, min: number, max: number): number {
  const text = flag ?? process.env[variable];
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${variable}: an integer from ${min} to ${max}`);
  return value;
}

const report = await runChaos({
  changes: option(values.changes, 'CHAOS_CHANGES', 1000, 1, 100_000),
  rounds: option(values.rounds, 'CHAOS_ROUNDS', 3, 1, 50),
  endpoints: option(values.endpoints, 'CHAOS_ENDPOINTS', 3, 1, 3),
  properties: option(values.properties, 'CHAOS_PROPERTIES', 10, 1, 500),
  concurrency: option(values.concurrency, 'CHAOS_CONCURRENCY', 4, 1, 64),
  attemptDelayMs: option(values['attempt-delay-ms'], 'CHAOS_ATTEMPT_DELAY_MS', 1000, 0, 9000),
  deadlineMs: option(values['deadline-seconds'], 'CHAOS_DEADLINE_SECONDS', 1800, 30, 86_400) * 1000,
  keep: values.keep || process.env.CHAOS_KEEP === '1',
  log: (line) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
});
const cpus = os.cpus();
const { deliveries } = report;
console.log(
  JSON.stringify(
    {
      machine: { cpu: cpus[0]?.model, cores: cpus.length, node: process.version },
      ...report,
      crashed: report.crashed.map((c) => c.split('\n')[0]),
    },
    null,
    2,
  ),
);
for (const crash of report.crashed) process.stderr.write(`\n${crash}\n`);
const failed =
  deliveries.lost > 0 ||
  deliveries.unexpected > 0 ||
  deliveries.idMismatches > 0 ||
  deliveries.sharedIds > 0 ||
  deliveries.unverified > 0 ||
  report.crashed.length > 0;
process.exitCode = failed ? 1 : 0;
