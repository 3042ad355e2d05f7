import { createHash, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { windowAt } from './counters.ts';
import { queryRows } from './sql.ts';
import { ApiKeySchema, type ApiKey, type Channel } from './entities/index.ts';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Raw queries return timestamps as text. */
interface KeyRow {
  id: string;
  environment: ApiKey['environment'];
  secret_hash: string;
  last4: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  expired_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  channel_id: string;
  channel_name: string;
  channel_status: Channel['status'];
  rate_limit_per_minute: number;
  redirect_url: string | null;
  technical_contact_email: string | null;
  channel_created_at: string;
  suspended_at: string | null;
  webhooks_suspended_at: string | null;
}

function instant(text: string | null): Date | null {
  return text === null ? null : new Date(text);
}

/** A key found by its secret, and the channel's count in this minute's window once this request is added. */
export interface KeyAndCount {
  key: ApiKey & { channel: Channel };
  /** null when the key is not usable (revoked or expired): nothing was counted against its channel. */
  count: number | null;
  /** Whole seconds (at least 1) until the window ends. */
  resetSeconds: number;
}

/**
 * The key whose hash is `secretHash`, with its channel as they are now, and in the same statement
 * one unit added to the channel's per-minute window: one round trip authenticates a request and
 * counts it. Only a usable key counts (the condition is `keyState`'s, in SQL), so a leaked key that
 * was revoked cannot spend its channel's limit. The final comparison is constant-time; records are
 * read as plain objects (no unit of work): callers read their fields and pass ids on.
 */
export async function findKeyAndCount(em: EntityManager, secretHash: string, now: Date): Promise<KeyAndCount | null> {
  const { windowStart, resetSeconds } = windowAt(now);
  const [row] = await queryRows<KeyRow & { count: number | null }>(
    em,
    `with found as (
       select k.id, k.environment, k.secret_hash, k.last4, k.scopes, k.created_at, k.expires_at, k.expired_at, k.revoked_at, k.last_used_at,
              c.id as channel_id, c.name as channel_name, c.status as channel_status, c.rate_limit_per_minute, c.redirect_url,
              c.technical_contact_email, c.created_at as channel_created_at, c.suspended_at, c.webhooks_suspended_at
         from api_key k join channel c on c.id = k.channel_id where k.secret_hash = $1
     ), counted as (
       insert into request_counter (bucket, window_start, count)
       select 'channel:' || channel_id, $2::timestamptz, 1 from found
        where revoked_at is null and expired_at is null and (expires_at is null or expires_at > $3)
       on conflict (bucket, window_start) do update set count = request_counter.count + excluded.count
       returning count
     )
     select found.*, (select count from counted) as count from found`,
    [secretHash, windowStart, now],
  );
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), Buffer.from(secretHash, 'hex'))) return null;
  const channel = {
    id: row.channel_id,
    name: row.channel_name,
    status: row.channel_status,
    rateLimitPerMinute: row.rate_limit_per_minute,
    redirectUrl: row.redirect_url,
    technicalContactEmail: row.technical_contact_email,
    createdAt: new Date(row.channel_created_at),
    suspendedAt: instant(row.suspended_at),
    webhooksSuspendedAt: instant(row.webhooks_suspended_at),
  };
  const key: ApiKey & { channel: Channel } = {
    id: row.id,
    channel,
    environment: row.environment,
    secretHash: row.secret_hash,
    last4: row.last4,
    scopes: row.scopes,
    createdAt: new Date(row.created_at),
    expiresAt: instant(row.expires_at),
    expiredAt: instant(row.expired_at),
    revokedAt: instant(row.revoked_at),
    lastUsedAt: instant(row.last_used_at),
  };
  return { key, count: row.count, resetSeconds };
}

export type KeyState = 'usable' | 'revoked' | 'expired';

export function keyState(key: ApiKey, now: Date): KeyState {
  if (key.revokedAt) return 'revoked';
  if (key.expiredAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) return 'expired';
  return 'usable';
}

/** Keys of `channel` in `environment` that are neither revoked nor expired at `now`. */
export function countLiveKeys(
  em: EntityManager,
  channel: Channel,
  environment: ApiKey['environment'],
  now: Date,
): Promise<number> {
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
