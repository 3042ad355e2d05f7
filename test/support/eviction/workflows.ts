import { proxyLocalActivities } from '@temporalio/workflow';

const { pause } = proxyLocalActivities<{ pause(ms: number): Promise<void> }>({ startToCloseTimeout: '30 seconds' });

/** Three local activities in a row: a workflow task stays open while each runs, as a delivery attempt's does. */
export async function threeLocalPauses(ms: number): Promise<void> {
  for (let i = 0; i < 3; i++) await pause(ms);
}
