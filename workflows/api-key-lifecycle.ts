import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { apiKeyRevokedSignal } from './definitions.ts';

const { markApiKeyExpired } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

export interface ApiKeyLifecycleInput {
  keyId: string;
  /** RFC 3339 instant, or null for a key issued without expiry. */
  expiresAt: string | null;
}

export type ApiKeyLifecycleOutcome = 'expired' | 'revoked';

/**
 * One per key (workflow id `api-key:<keyId>`): waits for the key's expiry and marks it expired,
 * unless revocation ends it first.
 */
export async function apiKeyLifecycle({ keyId, expiresAt }: ApiKeyLifecycleInput): Promise<ApiKeyLifecycleOutcome> {
  let revoked = false;
  setHandler(apiKeyRevokedSignal, () => {
    revoked = true;
  });
  if (expiresAt === null) {
    await condition(() => revoked);
    return 'revoked';
  }
  const remaining = Date.parse(expiresAt) - Date.now();
  if (remaining > 0 && (await condition(() => revoked, remaining))) return 'revoked';
  await markApiKeyExpired(keyId);
  return 'expired';
}
