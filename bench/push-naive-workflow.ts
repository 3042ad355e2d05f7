// The naive baseline of `npm run bench:push`: a trivial workflow running one regular activity.
import { proxyActivities } from '@temporalio/workflow';

const { post } = proxyActivities<{ post(id: string): Promise<number> }>({ startToCloseTimeout: '30 seconds' });

export async function naiveDelivery(id: string): Promise<number> {
  return post(id);
}
