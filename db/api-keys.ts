import { createHash, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { windowAt } from './counters.ts';
import { queryRows } from './sql.ts';
import type { ServiceEnvironment } from '../domain/api-keys.ts';
import type { Channel, ChannelStatus } from './channels.ts';
import { channelRecord } from './channels.ts';
import { ApiKeySchema, type ApiKey as ApiKeyEntity } from './entities/index.ts';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** An API key as it was read: a record, its channel by id. Only the hash of its secret is stored. */
export interface ApiKey {
  /** Public handle (`key_<ulid>`) used by operators to revoke; not a secret. */
  id: string;
  channelId: string;
  environment: ServiceEnvironment;
  secretHash: string;
  last4: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  expiredAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** A key read with its channel as it was then. */
export interface KeyWithChannel extends ApiKey {
  channel: Channel;
}

function keyRecord(row: ApiKeyEntity): ApiKey {
  return {
    id: row.id,
    channelId: row.channel.id,
    environment: row.environment,
    secretHash: row.secretHash,
    last4: row.last4,
    scopes: row.scopes,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt ?? null,
    expiredAt: row.expiredAt ?? null,
    revokedAt: row.revokedAt ?? null,
    lastUsedAt: row.lastUsedAt ?? null,
  };
}

/** Raw queries return timestamps as text. */
interface KeyRow {
  id: string;
  environment: ServiceEnvironment;
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
  channel_status: ChannelStatus;
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
  key: KeyWithChannel;
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
  const channel: Channel = {
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
  const key: KeyWithChannel = {
    id: row.id,
    channelId: row.channel_id,
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

/** Keys of the channel in `environment` that are neither revoked nor expired at `now`. */
export function countLiveKeys(
  em: EntityManager,
  channelId: string,
  environment: ServiceEnvironment,
  now: Date,
): Promise<number> {
  return em.count(ApiKeySchema, {
    channel: channelId,
    environment,
    revokedAt: null,
    expiredAt: null,
    $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
  });
}

export type NewApiKey = Omit<ApiKey, 'expiredAt' | 'revokedAt' | 'lastUsedAt'>;

/** Adds a key to the unit of work; it is written by the caller's flush or transaction. */
export function addApiKey(em: EntityManager, key: NewApiKey): ApiKey {
  const { channelId, ...fields } = key;
  return keyRecord(
    em.create(ApiKeySchema, { ...fields, channel: channelId, expiredAt: null, revokedAt: null, lastUsedAt: null }),
  );
}

/**
 * Revokes the key at `now` unless it was revoked before (then its instant stays); the key as it
 * is now, with its channel, or null when no key has that id.
 */
export async function revokeApiKey(em: EntityManager, id: string, now: Date): Promise<KeyWithChannel | null> {
  await em.nativeUpdate(ApiKeySchema, { id, revokedAt: null }, { revokedAt: now });
  const row = await em.findOne(ApiKeySchema, { id }, { populate: ['channel'] });
  return row && { ...keyRecord(row), channel: channelRecord(row.channel) };
}

export async function listApiKeys(em: EntityManager, channelId: string): Promise<ApiKey[]> {
  return (await em.find(ApiKeySchema, { channel: channelId }, { orderBy: { createdAt: 'desc' } })).map(keyRecord);
}

/** Marks the key expired unless it was revoked or marked already; true when this call marked it. */
export async function markApiKeyExpired(em: EntityManager, id: string, now: Date): Promise<boolean> {
  return (await em.nativeUpdate(ApiKeySchema, { id, expiredAt: null, revokedAt: null }, { expiredAt: now })) > 0;
}
