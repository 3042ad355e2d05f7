import { expect, test } from 'vitest';
import { deliveryRetryClient } from '../../services/delivery-retry-client.ts';
import type { webhookDelivery } from '../../workflows/webhook-delivery.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { devServerClient, uniqueTaskQueue } from '../support/temporal.ts';

// `delivery retry` against a delivery whose task queue no worker polls, on the run's dev server.

test('a retry no worker takes within the wait answers no_worker, read from the task queue pollers', async () => {
  const client = await devServerClient();
  const taskQueue = uniqueTaskQueue('retry-no-worker');
  await client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
    workflowId: workflowIds.webhookDelivery('whk_noworker', `evt_${taskQueue}`),
    taskQueue,
    args: [
      {
        deliveryId: 'dlv_noworker',
        endpointId: 'whk_noworker',
        eventId: `evt_${taskQueue}`,
        eventType: 'property.updated',
        channel: 'partner',
      },
    ],
  });
  const retries = deliveryRetryClient({ connect: () => Promise.resolve(client), taskQueue });
  expect(await retries.retryWebhookDelivery('whk_noworker', `evt_${taskQueue}`, 2, 2_000)).toEqual({
    unanswered: 'no_worker',
  });
  await client.workflow.getHandle(workflowIds.webhookDelivery('whk_noworker', `evt_${taskQueue}`)).terminate();
});
