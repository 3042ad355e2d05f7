import { createHash, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKey, type Channel } from './entities/index.ts';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The key whose hash matches, with its channel; the final comparison is constant-time. */
export async function findKeyBySecret(em: EntityManager, key: string): Promise<(ApiKey & { channel: Channel }) | null> {
  const hash = hashApiKey(key);
  const found = await em.findOne(ApiKeySchema, { secretHash: hash }, { populate: ['channel'] });
  if (!found || !timingSafeEqual(Buffer.from(found.secretHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return found;
}

export type KeyState = 'usable' | 'revoked' | 'expired';

export function keyState(key: ApiKey, now: Date): KeyState {
  if (key.revokedAt) return 'revoked';
  if (key.expiredAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return 'expired';
  return 'usable';
}
