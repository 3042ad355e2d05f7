import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { destroyPreviousSecret } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

export interface SecretRotationInput {
  endpointId: string;
  generation: number;
  /** RFC 3339 instant the previous secret stops signing. */
  previousExpiresAt: string;
}

/**
 * One per rotation (`webhook-secret-rotation:<endpoint>:<generation>`): the previous secret signs
 * beside the new one until `previousExpiresAt`, then it is destroyed, unless a later rotation
 * already replaced it.
 */
export async function webhookSecretRotation(input: SecretRotationInput): Promise<'destroyed' | 'superseded'> {
  const remaining = Date.parse(input.previousExpiresAt) - Date.now();
  if (remaining > 0) await sleep(remaining);
  return (await destroyPreviousSecret(input.endpointId, input.generation)) ? 'destroyed' : 'superseded';
}
