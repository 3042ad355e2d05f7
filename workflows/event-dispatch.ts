import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { eventsCommittedSignal } from './definitions.ts';

const { dispatchEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export interface EventDispatchInput {
  /** Without a signal the log is still looked at this often, so a lost signal delays but never loses. */
  pollSeconds: number;
}

/**
 * The dispatcher (workflow id `event-dispatch:<task queue>`): turns the event log into delivery
 * workflows, woken by the API's `eventsCommitted` signal after each write and by a poll. Its
 * progress lives in Postgres, so it restarts safely; it continues as new before its history grows.
 */
export async function eventDispatch(input: EventDispatchInput = { pollSeconds: 30 }): Promise<void> {
  let wake = true;
  setHandler(eventsCommittedSignal, () => {
    wake = true;
  });
  while (!workflowInfo().continueAsNewSuggested && workflowInfo().historyLength < 2000) {
    if (!wake) await condition(() => wake, input.pollSeconds * 1000);
    wake = false;
    const { more } = await dispatchEvents();
    if (more) wake = true;
  }
  await continueAsNew<typeof eventDispatch>(input);
}
