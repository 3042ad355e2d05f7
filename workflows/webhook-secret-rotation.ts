import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { destroyPreviousSecret } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

export interface SecretRotationInput {
  endpointId: string;
  generation: number;
  /**
   * How long the previous secret keeps signing, counted from the rotation. A duration rather than
   * an instant, so the workflow does not depend on the API's clock agreeing with Temporal's.
   */
  overlapMs: number;
}

/**
 * One per rotation (`webhook-secret-rotation:<endpoint>:<generation>`): the previous secret signs
 * beside the new one for `overlapMs`, then it is destroyed, unless a later rotation
 * already replaced it.
 */
export async function webhookSecretRotation(input: SecretRotationInput): Promise<'destroyed' | 'superseded'> {
  if (input.overlapMs > 0) await sleep(input.overlapMs);
  return (await destroyPreviousSecret(input.endpointId, input.generation)) ? 'destroyed' : 'superseded';
}
