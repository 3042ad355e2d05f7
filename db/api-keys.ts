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

/** Keys of `channel` in `environment` that are neither revoked nor expired at `now`. */
export function countLiveKeys(em: EntityManager, channel: Channel, environment: ApiKey['environment'], now: Date): Promise<number> {
  return em.count(ApiKeySchema, {
    channel,
    environment,
    revokedAt: null,
    expiredAt: null,
    $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
  });
}

export type NewApiKey = Omit<ApiKey, 'expiredAt' | 'revokedAt' | 'lastUsedAt'>;

/** Adds a key to the unit of work; it is written by the caller's flush or transaction. */
export function addApiKey(em: EntityManager, key: NewApiKey): ApiKey {
  return em.create(ApiKeySchema, { ...key, expiredAt: null, revokedAt: null, lastUsedAt: null });
}

export function findApiKey(em: EntityManager, id: string): Promise<ApiKey | null> {
  return em.findOne(ApiKeySchema, { id });
}

export function listApiKeys(em: EntityManager, channel: Channel): Promise<ApiKey[]> {
  return em.find(ApiKeySchema, { channel }, { orderBy: { createdAt: 'desc' } });
}

/** Marks the key expired unless it was revoked or marked already; true when this call marked it. */
export async function markApiKeyExpired(em: EntityManager, id: string, now: Date): Promise<boolean> {
  return (await em.nativeUpdate(ApiKeySchema, { id, expiredAt: null, revokedAt: null }, { expiredAt: now })) > 0;
}
