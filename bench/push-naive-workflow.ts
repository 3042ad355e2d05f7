// The baselines of `npm run bench:push` and `bench:push-pair`: a trivial workflow running one
// regular activity, and a workflow that does nothing.
import { proxyActivities } from '@temporalio/workflow';

const { post } = proxyActivities<{ post(id: string): Promise<number> }>({ startToCloseTimeout: '30 seconds' });

export async function naiveDelivery(id: string): Promise<number> {
  return post(id);
}

export async function emptyWorkflow(): Promise<void> {}
