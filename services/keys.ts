import { ulid } from 'ulid';
import { hashApiKey, type ApiKey, type KeyWithChannel } from '../db/api-keys.ts';
import type { Channel } from '../db/channels.ts';
import { generateApiKey, MAX_LIVE_KEYS } from '../domain/api-keys.ts';
import type { Scope } from '../domain/scopes.ts';
import { toInstant } from '../domain/time.ts';
import { leakedKeyMail } from '../infra/mailer.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

export { MAX_LIVE_KEYS };

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
export async function issueKey(
  deps: Pick<ServiceDeps, 'stores' | 'clock' | 'config' | 'workflows'>,
  input: IssueKeyInput,
): Promise<{ secret: string; key: ApiKey }> {
  const now = deps.clock.now();
  if (input.expiresAt && input.expiresAt <= now) throw new Refusal('expires-at is in the past');
  const { environment } = deps.config;
  const secret = generateApiKey(environment);
  const key = await deps.stores.keys.transaction(async (tx) => {
    // The channel row lock serialises issuers, so two cannot both pass the limit.
    const channel = await tx.findChannelByName(input.channel, { lock: true });
    if (!channel) throw new Refusal(`no channel named "${input.channel}"`);
    if ((await tx.countLiveKeys(channel.id, environment, now)) >= MAX_LIVE_KEYS) {
      throw new Refusal(
        `channel "${channel.name}" already holds ${MAX_LIVE_KEYS} keys in ${environment}; revoke one first`,
      );
    }
    const added = await tx.insertApiKey({
      id: `key_${ulid().toLowerCase()}`,
      channelId: channel.id,
      environment,
      secretHash: hashApiKey(secret),
      last4: secret.slice(-4),
      scopes: input.scopes,
      createdAt: now,
      expiresAt: input.expiresAt,
    });
    await deps.workflows.startApiKeyLifecycle({
      keyId: added.id,
      expiresAt: input.expiresAt ? input.expiresAt.toISOString() : null,
    });
    return added;
  });
  return { secret, key };
}

type RevokeDeps = Pick<ServiceDeps, 'stores' | 'clock' | 'workflows' | 'log'>;

async function revokeInDatabase(deps: Pick<ServiceDeps, 'stores' | 'clock'>, keyId: string): Promise<KeyWithChannel> {
  const key = await deps.stores.keys.revokeApiKey(keyId, deps.clock.now());
  if (!key) throw new Refusal(`no key with id "${keyId}"`);
  return key;
}

/** Revokes at once in the database, then ends the key's lifecycle workflow. Idempotent. */
export async function revokeKey(deps: RevokeDeps, keyId: string): Promise<KeyWithChannel> {
  const key = await revokeInDatabase(deps, keyId);
  // An expired key's workflow has already ended; revocation still stands.
  await deps.workflows.signalApiKeyRevoked(keyId);
  return key;
}

/** Whom a leak was told to; `sent: false` with the reason when nobody could be told. */
export interface LeakNotice {
  to: string | null;
  sent: boolean;
  error: string | null;
}

/**
 * A key found in public (docs/contract.md#keys, rule 3): revoked at once, before anything else, then the channel's
 * technical contact is e-mailed (without the key, which the service never holds). The revocation
 * stands whether or not the mail goes out; the notice says which.
 */
export async function revokeLeakedKey(
  deps: RevokeDeps & Pick<ServiceDeps, 'mailer'>,
  keyId: string,
): Promise<{ key: KeyWithChannel; notice: LeakNotice }> {
  const key = await revokeInDatabase(deps, keyId);
  const notice = await tellTechnicalContact(deps, key);
  await deps.workflows.signalApiKeyRevoked(keyId);
  return { key, notice };
}

async function tellTechnicalContact(
  deps: Pick<ServiceDeps, 'mailer' | 'log'>,
  key: KeyWithChannel,
): Promise<LeakNotice> {
  const to = key.channel.technicalContactEmail ?? null;
  if (!to) {
    deps.log.warn('leaked key revoked; the channel has no technical contact to tell', {
      keyId: key.id,
      channel: key.channel.name,
    });
    return { to, sent: false, error: 'the channel has no technical contact (channel update <name> --contact EMAIL)' };
  }
  try {
    const mail = leakedKeyMail({
      to,
      channel: key.channel.name,
      environment: key.environment,
      keyId: key.id,
      last4: key.last4,
      revokedAt: toInstant(key.revokedAt!),
    });
    const { sent } = await deps.mailer.send(mail);
    if (!sent)
      deps.log.warn('leaked key revoked; no SMTP configured to tell the technical contact', {
        keyId: key.id,
        channel: key.channel.name,
      });
    return { to, sent, error: sent ? null : 'no SMTP server is configured (SMTP_URL)' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log.warn('leaked key revoked; the mail to the technical contact failed', {
      keyId: key.id,
      channel: key.channel.name,
      error: message,
    });
    return { to, sent: false, error: message };
  }
}

export async function keysOfChannel(
  deps: Pick<ServiceDeps, 'stores'>,
  channelName: string,
): Promise<{ channel: Channel; keys: ApiKey[] }> {
  const channel = await deps.stores.keys.findChannelByName(channelName);
  if (!channel) throw new Refusal(`no channel named "${channelName}"`);
  return { channel, keys: await deps.stores.keys.listApiKeys(channel.id) };
}
