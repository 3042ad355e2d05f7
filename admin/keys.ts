import { z } from 'zod';
import type { ApiKey } from '../db/api-keys.ts';
import { GRANTABLE_SCOPES, isScope, type Scope } from '../domain/scopes.ts';
import { toInstant } from '../domain/time.ts';
import * as keys from '../services/keys.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

const Scopes = z
  .string()
  .transform((list) =>
    list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string()).min(1, 'name at least one scope'))
  .superRefine((scopes, ctx) => {
    for (const scope of scopes) {
      if (!isScope(scope))
        ctx.addIssue({ code: 'custom', message: `unknown scope "${scope}" (known: ${GRANTABLE_SCOPES.join(', ')})` });
      else if (!GRANTABLE_SCOPES.includes(scope))
        ctx.addIssue({ code: 'custom', message: `scope "${scope}" is reserved and not granted` });
    }
  })
  .transform((scopes) => [...new Set(scopes)] as Scope[]);

const IssueKeyInput = z.object({
  channel: z.string().min(1),
  scopes: Scopes,
  expiresAt: z.iso
    .datetime({ offset: true, message: 'expires-at is an RFC 3339 instant, e.g. 2027-01-31T00:00:00Z' })
    .optional(),
});

export function keyDocument(key: ApiKey, now: Date) {
  const state = key.revokedAt
    ? 'revoked'
    : key.expiredAt || (key.expiresAt && key.expiresAt <= now)
      ? 'expired'
      : 'active';
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

/** `key issue`: the CLI's words parsed, then the service; the key appears only in this answer. */
export async function issueKey(ctx: AdminContext, input: z.input<typeof IssueKeyInput>) {
  const parsed = IssueKeyInput.safeParse(input);
  if (!parsed.success) throw new AdminError(parsed.error.issues.map((i) => i.message).join('; '));
  const expiresAt = parsed.data.expiresAt ? new Date(parsed.data.expiresAt) : null;
  const { secret, key } = await keys.issueKey(ctx, {
    channel: parsed.data.channel,
    scopes: parsed.data.scopes,
    expiresAt,
  });
  return { key: secret, id: key.id, last4: key.last4, expires_at: expiresAt ? toInstant(expiresAt) : null };
}

export async function revokeKey(ctx: AdminContext, keyId: string, options: { leaked?: boolean } = {}) {
  if (!options.leaked) return keyDocument(await keys.revokeKey(ctx, keyId), ctx.clock.now());
  const { key, notice } = await keys.revokeLeakedKey(ctx, keyId);
  return { ...keyDocument(key, ctx.clock.now()), leak_notice: notice };
}

export async function listKeys(ctx: AdminContext, channelName: string) {
  const { channel, keys: found } = await keys.keysOfChannel(ctx, channelName);
  return { channel: channel.name, data: found.map((key) => keyDocument(key, ctx.clock.now())) };
}
