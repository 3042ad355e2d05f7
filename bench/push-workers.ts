// Pieces of `npm run bench:push` for runs with more than one worker: waiting until the server no
// longer counts a stopped worker as polling, and which worker made each delivery's first attempt.
import os from 'node:os';
import type { Client } from '@temporalio/client';
import { POLLER_RECENT_MS, workflowTaskPollers } from '../services/eager-start.ts';
import { eachConcurrently, round } from './push-support.ts';

/**
 * Waits until no worker has polled `taskQueue` within the span in which the dispatcher counts it
 * as polling (services/eager-start.ts). A run's workers start after the previous run's stopped: a
 * worker starting sooner would see the stopped one still listed and start its deliveries through
 * the queue, not eagerly, which is what a deployment sees for 90 s after a worker is replaced,
 * not how one worker runs.
 */
export async function untilNoWorkerPolls(client: Client, taskQueue: string): Promise<void> {
  for (;;) {
    const last = Math.max(0, ...(await workflowTaskPollers(client, taskQueue)).map((p) => p.lastPollMs));
    const wait = last + POLLER_RECENT_MS - Date.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait + 100));
  }
}

/**
 * Which of `pids` (worker processes of this machine, whose Temporal identity is `<pid>@<host>`)
 * took each delivery's first workflow task, the one its first attempt runs in, read from the
 * workflows' histories: each worker's share in per cent, and how many starts were eager.
 */
export async function firstAttemptShares(client: Client, workflowIds: readonly string[], pids: readonly number[]) {
  const names = new Map(pids.map((pid, i) => [`${pid}@${os.hostname()}`, `worker ${i + 1}`]));
  const counts = new Map<string, number>([...names.values(), 'another'].map((name) => [name, 0]));
  let eager = 0;
  await eachConcurrently(workflowIds, 16, async (workflowId) => {
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    if (events[0]?.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted) eager += 1;
    const identity = events.find((e) => e.workflowTaskStartedEventAttributes)?.workflowTaskStartedEventAttributes
      ?.identity;
    const name = names.get(identity ?? '') ?? 'another';
    counts.set(name, counts.get(name)! + 1);
  });
  if (counts.get('another') === 0) counts.delete('another');
  return {
    'share of first attempts, %': Object.fromEntries(
      [...counts].map(([name, count]) => [name, round((100 * count) / workflowIds.length)]),
    ),
    'eager starts': eager,
  };
}
