import { z } from 'zod';
import type { Channel } from '../db/channels.ts';
import { toInstant } from '../domain/time.ts';
import * as channels from '../services/channels.ts';
import { setChannelWebhooksSuspended } from '../services/webhooks.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

export const MIN_RATE_LIMIT = 600;

export const ChannelName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{1,62}$/,
    'a channel name is 2-63 characters: lowercase letters, digits and hyphens, starting with a letter',
  );

const CreateChannelInput = z.object({
  name: ChannelName,
  redirectUrl: z.url({ protocol: /^https$/ }).optional(),
  rateLimit: z.coerce
    .number()
    .int()
    .min(MIN_RATE_LIMIT, `the rate limit is at least ${MIN_RATE_LIMIT} per minute`)
    .default(MIN_RATE_LIMIT),
  contact: z.email().optional(),
});

/** `none` clears an optional setting. */
const orNone = <T extends z.ZodType>(schema: T) => z.union([z.literal('none').transform(() => null), schema]);

const UpdateChannelInput = z
  .object({
    name: z.string().min(1),
    redirectUrl: orNone(
      z.url({ protocol: /^https$/, message: 'the redirect URL is an https:// URL, or none' }),
    ).optional(),
    rateLimit: z.coerce
      .number()
      .int()
      .min(MIN_RATE_LIMIT, `the rate limit is at least ${MIN_RATE_LIMIT} per minute`)
      .optional(),
    contact: orNone(z.email({ message: 'the contact is an e-mail address, or none' })).optional(),
  })
  .refine((input) => input.redirectUrl !== undefined || input.rateLimit !== undefined || input.contact !== undefined, {
    message: 'name at least one setting: --redirect-url, --rate-limit or --contact',
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

export async function createChannel(ctx: AdminContext, input: z.input<typeof CreateChannelInput>) {
  const parsed = CreateChannelInput.safeParse(input);
  if (!parsed.success)
    throw new AdminError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  const { name, rateLimit, redirectUrl, contact } = parsed.data;
  return channelDocument(
    await channels.createChannel(ctx, {
      name,
      rateLimitPerMinute: rateLimit,
      redirectUrl: redirectUrl ?? null,
      technicalContactEmail: contact ?? null,
    }),
  );
}

/** `channel update`: the settings of this deployment's environment. */
export async function updateChannel(ctx: AdminContext, input: z.input<typeof UpdateChannelInput>) {
  const parsed = UpdateChannelInput.safeParse(input);
  if (!parsed.success)
    throw new AdminError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  const { name, rateLimit, redirectUrl, contact } = parsed.data;
  return channelDocument(
    await channels.updateChannel(ctx, name, {
      rateLimitPerMinute: rateLimit,
      redirectUrl,
      technicalContactEmail: contact,
    }),
  );
}

export async function setChannelStatus(ctx: AdminContext, name: string, status: 'active' | 'suspended') {
  return channelDocument(await channels.setChannelStatus(ctx, name, status));
}

/** Operators stop (or allow again) a channel's webhooks without suspending the channel itself. */
export async function setWebhooksSuspended(ctx: AdminContext, name: string, suspended: boolean) {
  const channel = await setChannelWebhooksSuspended(ctx, name, suspended);
  if (!channel) throw new AdminError(`no channel named "${name}"`);
  return channelDocument(channel);
}

export async function listChannels(ctx: AdminContext) {
  return { data: (await channels.listChannels(ctx)).map(channelDocument) };
}
