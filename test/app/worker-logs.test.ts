import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, test } from 'vitest';
import { withActivityContext } from '../../activities/log-context.ts';
import { createLogger } from '../../infra/logger.ts';

// The worker's own lines say which activity, attempt and workflow wrote them.

describe('worker log lines', () => {
  test('a line written inside an activity carries the activity and its workflow; outside, nothing is added', async () => {
    const out: string[] = [];
    const log = withActivityContext(
      createLogger('info', { process: 'worker' }, { write: (line: string) => void out.push(line) }),
    );
    const env = new MockActivityEnvironment({
      activityType: 'attemptDelivery',
      activityId: '7',
      attempt: 3,
      workflowType: 'webhookDelivery',
      workflowExecution: { workflowId: 'webhook-delivery:whk_1:evt_1', runId: 'run-1' },
    });
    await env.run(() =>
      Promise.resolve(log.info('webhook attempt failed', { deliveryId: 'dlv_1', secret: 'whsec_never' })),
    );
    log.warn('outside');
    const [inside, outside] = out.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inside).toMatchObject({
      message: 'webhook attempt failed',
      process: 'worker',
      activityType: 'attemptDelivery',
      activityId: '7',
      attempt: 3,
      workflowId: 'webhook-delivery:whk_1:evt_1',
      workflowType: 'webhookDelivery',
      runId: 'run-1',
      deliveryId: 'dlv_1',
      secret: '[redacted]',
    });
    expect(outside).toMatchObject({ message: 'outside', level: 'warn' });
    expect(outside).not.toHaveProperty('activityType');
    expect(out.join('')).not.toContain('whsec_never');
  });
});
