import { ulid } from 'ulid';
import { addApiKey, countLiveKeys, findApiKey, hashApiKey, listApiKeys } from '../db/api-keys.ts';
import { findChannelByName } from '../db/channels.ts';
import type { ApiKey, Channel } from '../db/entities/index.ts';
import { generateApiKey } from '../domain/api-keys.ts';
import type { Scope } from '../domain/scopes.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

/** During a rotation a channel holds the old key and the new one; never more. */
export const MAX_LIVE_KEYS = 2;

export interface IssueKeyInput {
  channel: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

/**
 * Issues a key and starts its lifecycle workflow in one step: the row is committed only once
 * the workflow has started, so a key never lives without the process that expires it. The
 * secret is returned once and only its hash is stored.
 */
export async function issueKey(deps: ServiceDeps, input: IssueKeyInput): Promise<{ secret: string; key: ApiKey }> {
  const now = deps.clock.now();
  if (input.expiresAt && input.expiresAt <= now) throw new Refusal('expires-at is in the past');
  const { environment } = deps.config;
  const secret = generateApiKey(environment);
  const key = await deps.orm.em.fork().transactional(async (em) => {
    // The channel row lock serialises issuers, so two cannot both pass the limit.
    const channel = await findChannelByName(em, input.channel, { lock: true });
    if (!channel) throw new Refusal(`no channel named "${input.channel}"`);
    if ((await countLiveKeys(em, channel, environment, now)) >= MAX_LIVE_KEYS) {
      throw new Refusal(`channel "${channel.name}" already holds ${MAX_LIVE_KEYS} keys in ${environment}; revoke one first`);
    }
    const added = addApiKey(em, {
      id: `key_${ulid().toLowerCase()}`, channel, environment, secretHash: hashApiKey(secret), last4: secret.slice(-4), scopes: input.scopes, createdAt: now, expiresAt: input.expiresAt,
    });
    await em.flush();
    await deps.workflows.startApiKeyLifecycle({ keyId: added.id, expiresAt: input.expiresAt ? input.expiresAt.toISOString() : null });
    return added;
  });
  return { secret, key };
}

/** Revokes at once in the database, then ends the key's lifecycle workflow. Idempotent. */
export async function revokeKey(deps: ServiceDeps, keyId: string): Promise<ApiKey> {
  const em = deps.orm.em.fork();
  const key = await findApiKey(em, keyId);
  if (!key) throw new Refusal(`no key with id "${keyId}"`);
  key.revokedAt ??= deps.clock.now();
  await em.flush();
  // An expired key's workflow has already ended; revocation still stands.
  await deps.workflows.signalApiKeyRevoked(keyId);
  return key;
}

export async function keysOfChannel(deps: ServiceDeps, channelName: string): Promise<{ channel: Channel; keys: ApiKey[] }> {
  const em = deps.orm.em.fork();
  const channel = await findChannelByName(em, channelName);
  if (!channel) throw new Refusal(`no channel named "${channelName}"`);
  return { channel, keys: await listApiKeys(em, channel) };
}
