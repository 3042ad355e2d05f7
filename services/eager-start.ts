import type { Client } from '@temporalio/client';

/** How long one look at the task queue's pollers decides the starts that follow it. */
const POLLER_LOOK_MS = 10_000;

/**
 * A worker counts as polling while its last poll of the queue began this recently. An idle
 * worker begins one at least every minute (the server answers a long poll with nothing after
 * 60 s), so a running worker is always within it; a stopped one is still listed by the server for
 * 5 minutes, and stops counting here 90 s after its last poll.
 */
export const POLLER_RECENT_MS = 90_000;

/**
 * Whether the worker that starts a delivery may ask for eager execution: only while it is the
 * one worker polling the task queue (docs/decisions.md "Workers"). An eager start hands the
 * delivery's first workflow task, its first attempt with it, to the worker that started it, the
 * dispatcher's; with more workers, the first tasks go through the queue and each worker takes
 * its share. One `DescribeTaskQueue` (a read of the server's memory, a few ms) decides for
 * {@link POLLER_LOOK_MS}; the starts of that span share it. A look that fails decides "not
 * alone": the starts then go through the queue, which is always right, only dearer for one worker.
 */
export function soleWorkerLook(taskQueue: string) {
  let last: { until: number; alone: Promise<boolean> } | undefined;
  return (client: Client): Promise<boolean> => {
    const at = Date.now();
    if (!last || at >= last.until) last = { until: at + POLLER_LOOK_MS, alone: onlyPoller(client, taskQueue, at) };
    return last.alone;
  };
}

/** The workers the server lists as polling the queue's workflow tasks: each identity and when its last poll began (ms). */
export async function workflowTaskPollers(
  client: Client,
  taskQueue: string,
): Promise<{ identity: string; lastPollMs: number }[]> {
  // Without a task queue type, the server describes the workflow tasks' pollers.
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
  });
  return (pollers ?? []).map((poller) => ({
    identity: poller.identity ?? '',
    lastPollMs:
      Number(poller.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6),
  }));
}

/** True when at most one worker identity polled the queue's workflow tasks within {@link POLLER_RECENT_MS}. */
async function onlyPoller(client: Client, taskQueue: string, at: number): Promise<boolean> {
  try {
    const recent = (await workflowTaskPollers(client, taskQueue)).filter((p) => at - p.lastPollMs < POLLER_RECENT_MS);
    return new Set(recent.map((p) => p.identity)).size <= 1;
  } catch {
    return false;
  }
}
