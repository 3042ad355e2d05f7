import { randomUUID } from 'node:crypto';
import { addChannel, channelNameTaken, findChannelByName, listChannels as allChannels } from '../db/channels.ts';
import type { Channel } from '../db/entities/index.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

export interface CreateChannelInput {
  name: string;
  rateLimitPerMinute: number;
  redirectUrl: string | null;
  technicalContactEmail: string | null;
}

export async function createChannel(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  input: CreateChannelInput,
): Promise<Channel> {
  const em = deps.orm.em.fork();
  if (await channelNameTaken(em, input.name)) throw new Refusal(`a channel named "${input.name}" exists`);
  const channel = addChannel(em, { id: randomUUID(), ...input, createdAt: deps.clock.now() });
  await em.flush();
  return channel;
}

/** The settings `channel update` may change; an absent one is left as it is, null clears it. */
export interface ChannelSettings {
  rateLimitPerMinute?: number;
  redirectUrl?: string | null;
  technicalContactEmail?: string | null;
}

/**
 * Changes a channel's settings. One deployment serves one environment, so they are the settings
 * of this deployment's environment (the other environment's deployment keeps its own record).
 * The next request sees them: the rate limit applies from the current minute's count.
 */
export async function updateChannel(
  deps: Pick<ServiceDeps, 'orm'>,
  name: string,
  settings: ChannelSettings,
): Promise<Channel> {
  const em = deps.orm.em.fork();
  const channel = await findChannelByName(em, name);
  if (!channel) throw new Refusal(`no channel named "${name}"`);
  if (settings.rateLimitPerMinute !== undefined) channel.rateLimitPerMinute = settings.rateLimitPerMinute;
  if (settings.redirectUrl !== undefined) channel.redirectUrl = settings.redirectUrl;
  if (settings.technicalContactEmail !== undefined) channel.technicalContactEmail = settings.technicalContactEmail;
  await em.flush();
  return channel;
}

/** A suspended channel is refused on every operation (`partner_suspended`) and sent nothing. */
export async function setChannelStatus(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  name: string,
  status: Channel['status'],
): Promise<Channel> {
  const em = deps.orm.em.fork();
  const channel = await findChannelByName(em, name);
  if (!channel) throw new Refusal(`no channel named "${name}"`);
  channel.status = status;
  channel.suspendedAt = status === 'suspended' ? deps.clock.now() : null;
  await em.flush();
  return channel;
}

export function listChannels(deps: Pick<ServiceDeps, 'orm'>): Promise<Channel[]> {
  return allChannels(deps.orm.em.fork());
}
