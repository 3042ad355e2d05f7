import { sleep } from '@temporalio/workflow';

/**
 * A `webhookDelivery` whose code is not the service's: it sleeps before anything else, where the
 * real one's first command is its attempt (a local activity's marker). Replaying a real delivery's
 * history against this bundle must fail with nondeterminism (test/scripts/replay.test.ts).
 */
export async function webhookDelivery(): Promise<string> {
  await sleep('1 minute');
  return 'delivered';
}
