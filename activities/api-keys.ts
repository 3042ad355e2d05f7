import { ApiKeySchema } from '../db/entities/index.ts';
import type { ActivityDeps } from './deps.ts';

export function apiKeyActivities({ orm, clock }: ActivityDeps) {
  return {
    /** Marks the key expired unless it was revoked or marked already; true when this call marked it. */
    async markApiKeyExpired(keyId: string): Promise<boolean> {
      const em = orm.em.fork();
      const changed = await em.nativeUpdate(ApiKeySchema, { id: keyId, expiredAt: null, revokedAt: null }, { expiredAt: clock.now() });
      return changed > 0;
    },
  };
}
