import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ChannelSchema, type Channel } from '../db/entities/index.ts';
import { toInstant } from '../domain/time.ts';
import { setChannelWebhooksSuspended } from '../services/webhooks.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

export const MIN_RATE_LIMIT = 600;

export const ChannelName = z.string().regex(/^[a-z][a-z0-9-]{1,62}$/, 'a channel name is 2-63 characters: lowercase letters, digits and hyphens, starting with a letter');

const CreateChannelInput = z.object({
  name: ChannelName,
  redirectUrl: z.url({ protocol: /^https$/ }).optional(),
  rateLimit: z.coerce.number().int().min(MIN_RATE_LIMIT, `the rate limit is at least ${MIN_RATE_LIMIT} per minute`).default(MIN_RATE_LIMIT),
  contact: z.email().optional(),
});

export function channelDocument(channel: Channel) {
  return {
    id: channel.id,
    name: channel.name,
    status: channel.status,
    rate_limit: { per_minute: channel.rateLimitPerMinute },
    owner_connect: { redirect_url: channel.redirectUrl ?? null },
    technical_contact: channel.technicalContactEmail ?? null,
    webhooks_suspended_at: channel.webhooksSuspendedAt ? toInstant(channel.webhooksSuspendedAt) : null,
    created_at: toInstant(channel.createdAt),
  };
}

export async function findChannel(ctx: AdminContext, name: string): Promise<Channel> {
  const channel = await ctx.orm.em.fork().findOne(ChannelSchema, { name });
  if (!channel) throw new AdminError(`no channel named "${name}"`);
  return channel;
}

export async function createChannel(ctx: AdminContext, input: z.input<typeof CreateChannelInput>) {
  const parsed = CreateChannelInput.safeParse(input);
  if (!parsed.success) throw new AdminError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  const em = ctx.orm.em.fork();
  if (await em.count(ChannelSchema, { name: parsed.data.name })) throw new AdminError(`a channel named "${parsed.data.name}" exists`);
  const channel = em.create(ChannelSchema, {
    id: randomUUID(),
    name: parsed.data.name,
    status: 'active',
    rateLimitPerMinute: parsed.data.rateLimit,
    redirectUrl: parsed.data.redirectUrl ?? null,
    technicalContactEmail: parsed.data.contact ?? null,
    createdAt: ctx.clock.now(),
    suspendedAt: null,
    webhooksSuspendedAt: null,
  });
  await em.flush();
  return channelDocument(channel);
}

export async function setChannelStatus(ctx: AdminContext, name: string, status: 'active' | 'suspended') {
  const em = ctx.orm.em.fork();
  const channel = await em.findOne(ChannelSchema, { name });
  if (!channel) throw new AdminError(`no channel named "${name}"`);
  channel.status = status;
  channel.suspendedAt = status === 'suspended' ? ctx.clock.now() : null;
  await em.flush();
  return channelDocument(channel);
}

/** Operators stop (or allow again) a channel's webhooks without suspending the channel itself. */
export async function setWebhooksSuspended(ctx: AdminContext, name: string, suspended: boolean) {
  const channel = await setChannelWebhooksSuspended(ctx, name, suspended);
  if (!channel) throw new AdminError(`no channel named "${name}"`);
  return channelDocument(channel);
}

export async function listChannels(ctx: AdminContext) {
  const channels = await ctx.orm.em.fork().find(ChannelSchema, {}, { orderBy: { name: 'asc' } });
  return { data: channels.map(channelDocument) };
}
