import { markApiKeyExpired } from '../db/api-keys.ts';
import type { ActivityDeps } from './deps.ts';

export function apiKeyActivities({ orm, clock }: ActivityDeps) {
  return {
    /** Marks the key expired unless it was revoked or marked already; true when this call marked it. */
    async markApiKeyExpired(keyId: string): Promise<boolean> {
      return markApiKeyExpired(orm.em.fork(), keyId, clock.now());
    },
  };
}
