import { LockMode } from '@mikro-orm/core';
import { ulid } from 'ulid';
import { z } from 'zod';
import { hashApiKey } from '../db/api-keys.ts';
import { ApiKeySchema, ChannelSchema, type ApiKey } from '../db/entities/index.ts';
import { generateApiKey } from '../domain/api-keys.ts';
import { GRANTABLE_SCOPES, isScope, type Scope } from '../domain/scopes.ts';
import { toInstant } from '../domain/time.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

/** During a rotation a channel holds the old key and the new one; never more. */
export const MAX_LIVE_KEYS = 2;

const Scopes = z
  .string()
  .transform((list) => list.split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string()).min(1, 'name at least one scope'))
  .superRefine((scopes, ctx) => {
    for (const scope of scopes) {
      if (!isScope(scope)) ctx.addIssue({ code: 'custom', message: `unknown scope "${scope}" (known: ${GRANTABLE_SCOPES.join(', ')})` });
      else if (!GRANTABLE_SCOPES.includes(scope)) ctx.addIssue({ code: 'custom', message: `scope "${scope}" is reserved and not granted` });
    }
  })
  .transform((scopes) => [...new Set(scopes)] as Scope[]);

const IssueKeyInput = z.object({
  channel: z.string().min(1),
  scopes: Scopes,
  expiresAt: z.iso.datetime({ offset: true, message: 'expires-at is an RFC 3339 instant, e.g. 2027-01-31T00:00:00Z' }).optional(),
});

export function keyDocument(key: ApiKey, now: Date) {
  const state = key.revokedAt ? 'revoked' : key.expiredAt || (key.expiresAt && key.expiresAt <= now) ? 'expired' : 'active';
  return {
    id: key.id,
    last4: key.last4,
    environment: key.environment,
    scopes: key.scopes,
    state,
    created_at: toInstant(key.createdAt),
    expires_at: key.expiresAt ? toInstant(key.expiresAt) : null,
    revoked_at: key.revokedAt ? toInstant(key.revokedAt) : null,
  };
}

/**
 * Issues a key and starts its lifecycle workflow in one step: the row is committed only once
 * the workflow has started, so a key never lives without the process that expires it.
 */
export async function issueKey(ctx: AdminContext, input: z.input<typeof IssueKeyInput>) {
  const parsed = IssueKeyInput.safeParse(input);
  if (!parsed.success) throw new AdminError(parsed.error.issues.map((i) => i.message).join('; '));
  const now = ctx.clock.now();
  const expiresAt = parsed.data.expiresAt ? new Date(parsed.data.expiresAt) : null;
  if (expiresAt && expiresAt <= now) throw new AdminError('expires-at is in the past');
  const environment = ctx.config.environment;
  const secret = generateApiKey(environment);
  const id = `key_${ulid().toLowerCase()}`;
  await ctx.orm.em.fork().transactional(async (em) => {
    const channel = await em.findOne(ChannelSchema, { name: parsed.data.channel }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!channel) throw new AdminError(`no channel named "${parsed.data.channel}"`);
    const live = await em.count(ApiKeySchema, {
      channel,
      environment,
      revokedAt: null,
      expiredAt: null,
      $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
    });
    if (live >= MAX_LIVE_KEYS) throw new AdminError(`channel "${channel.name}" already holds ${MAX_LIVE_KEYS} keys in ${environment}; revoke one first`);
    em.create(ApiKeySchema, {
      id, channel, environment, secretHash: hashApiKey(secret), last4: secret.slice(-4), scopes: parsed.data.scopes,
      createdAt: now, expiresAt, expiredAt: null, revokedAt: null, lastUsedAt: null,
    });
    await em.flush();
    await ctx.workflows.startApiKeyLifecycle({ keyId: id, expiresAt: expiresAt ? expiresAt.toISOString() : null });
  });
  return { key: secret, id, last4: secret.slice(-4), expires_at: expiresAt ? toInstant(expiresAt) : null };
}

/** Revokes at once in the database, then ends the key's lifecycle workflow. Idempotent. */
export async function revokeKey(ctx: AdminContext, keyId: string) {
  const em = ctx.orm.em.fork();
  const key = await em.findOne(ApiKeySchema, { id: keyId });
  if (!key) throw new AdminError(`no key with id "${keyId}"`);
  key.revokedAt ??= ctx.clock.now();
  await em.flush();
  // An expired key's workflow has already ended; revocation still stands.
  await ctx.workflows.signalApiKeyRevoked(keyId);
  return keyDocument(key, ctx.clock.now());
}

export async function listKeys(ctx: AdminContext, channelName: string) {
  const em = ctx.orm.em.fork();
  const channel = await em.findOne(ChannelSchema, { name: channelName });
  if (!channel) throw new AdminError(`no channel named "${channelName}"`);
  const keys = await em.find(ApiKeySchema, { channel }, { orderBy: { createdAt: 'desc' } });
  return { channel: channel.name, data: keys.map((key) => keyDocument(key, ctx.clock.now())) };
}
