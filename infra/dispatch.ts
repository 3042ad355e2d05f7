import type { Client } from '@temporalio/client';
import { eventsCommittedSignal } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { Logger } from './logger.ts';

/** Wakes the dispatcher of this task queue, starting it when it is not running. */
export async function ensureDispatcher(client: Client, taskQueue: string, pollSeconds: number): Promise<void> {
  await client.workflow.signalWithStart('eventDispatch', {
    workflowId: workflowIds.eventDispatch(taskQueue),
    taskQueue,
    args: [{ pollSeconds }],
    signal: eventsCommittedSignal,
    signalArgs: [],
  });
}

/**
 * After a write committed events: tell the dispatcher. Best effort: when Temporal is unreachable
 * the write still stands and the dispatcher's poll finds the events.
 */
export function notifyDispatcher(client: Client, taskQueue: string, pollSeconds: number, log: Logger): void {
  ensureDispatcher(client, taskQueue, pollSeconds).catch((error: unknown) => log.warn('could not wake the event dispatcher; its poll will find the events', { error: String(error) }));
}
