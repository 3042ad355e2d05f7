import {
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { eventsCommittedSignal } from './definitions.ts';

const DISPATCH_OPTIONS = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
} as const;
const { dispatchEvents } = proxyActivities<Activities>(DISPATCH_OPTIONS);
// The same call as a local activity: no activity task to schedule, hand out and report back,
// and no second workflow task, between a wake and the deliveries' starts.
const local = proxyLocalActivities<Activities>(DISPATCH_OPTIONS);

export interface EventDispatchInput {
  /** Without a signal the log is still looked at this often, so a lost signal delays but never loses. */
  pollSeconds: number;
  /**
   * `local`: dispatches as a local activity (every dispatcher started or continued since this
   * field exists). A dispatcher started before it runs the earlier path until it continues as new.
   */
  dispatch?: 'local';
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
    const { more } = await (input.dispatch === 'local' ? local.dispatchEvents() : dispatchEvents());
    if (more) wake = true;
  }
  await continueAsNew<typeof eventDispatch>({ ...input, dispatch: 'local' });
}
