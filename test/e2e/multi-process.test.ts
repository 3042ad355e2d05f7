import { expect, test } from 'vitest';
import { runChaos } from '../../scripts/chaos/scenario.ts';

// The service as it is deployed: two API processes and two workers (real `scripts/api.ts` and
// `scripts/worker.ts` child processes) on one PostgreSQL and one Temporal dev server of the test's
// own (the run's shared servers are never restarted). Changes are written alternately through both
// APIs while a worker is killed with SIGKILL as it holds attempts open at the receiver (known from
// the kernel's socket table), then Temporal is SIGKILLed and started again on its SQLite file and
// PostgreSQL is stopped and started again on its data, while changes keep being written; a
// replacement worker starts. The longer version is `npm run chaos`.
test('two API processes and two workers ride out a worker SIGKILL mid-attempt and restarts of Temporal and PostgreSQL: every (endpoint, event) arrives under its one webhook-id', async () => {
  const lines: string[] = [];
  const report = await runChaos({
    changes: 60,
    properties: 3,
    endpoints: 2,
    rounds: 1,
    concurrency: 2,
    attemptDelayMs: 1500,
    deadlineMs: 200_000,
    keep: false,
    log: (line) => lines.push(line),
  });
  const context = JSON.stringify({ ...report, log: lines }, null, 2);
  expect(report.kills, context).toEqual([{ worker: expect.stringMatching(/^worker-[12]$/), inFlight: true }]);
  expect(report.restarts, context).toEqual({ temporal: ['kill'], postgres: ['clean'] });
  expect(report.crashed, context).toEqual([]);
  // The worker not killed stayed up through both restarts, and it polls the restarted server by
  // itself, as the replacement does.
  expect(report.silentAfterRestart, context).toEqual([]);
  // 60 changes, each one event (plus the setup's), to `*` and most of them to `property.*` as well.
  expect(report.events, context).toBeGreaterThanOrEqual(60);
  expect(report.deliveries.expected, context).toBeGreaterThan(report.events);
  expect(report.deliveries, context).toMatchObject({
    received: report.deliveries.expected,
    lost: 0,
    unexpected: 0,
    idMismatches: 0,
    sharedIds: 0,
    unverified: 0,
  });
}, 300_000);
