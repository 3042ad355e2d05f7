import { randomUUID } from 'node:crypto';
import type { Channel, ChannelStatus } from '../db/channels.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

export interface CreateChannelInput {
  name: string;
  rateLimitPerMinute: number;
  redirectUrl: string | null;
  technicalContactEmail: string | null;
}

export async function createChannel(
  deps: Pick<ServiceDeps, 'stores' | 'clock'>,
  input: CreateChannelInput,
): Promise<Channel> {
  const store = deps.stores.channels;
  if (await store.channelNameTaken(input.name)) throw new Refusal(`a channel named "${input.name}" exists`);
  return store.insertChannel({ id: randomUUID(), ...input, createdAt: deps.clock.now() });
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
  deps: Pick<ServiceDeps, 'stores'>,
  name: string,
  settings: ChannelSettings,
): Promise<Channel> {
  const channel = await deps.stores.channels.changeChannel(name, settings);
  if (!channel) throw new Refusal(`no channel named "${name}"`);
  return channel;
}

/** A suspended channel is refused on every operation (`partner_suspended`) and sent nothing. */
export async function setChannelStatus(
  deps: Pick<ServiceDeps, 'stores' | 'clock'>,
  name: string,
  status: ChannelStatus,
): Promise<Channel> {
  const suspendedAt = status === 'suspended' ? deps.clock.now() : null;
  const channel = await deps.stores.channels.changeChannel(name, { status, suspendedAt });
  if (!channel) throw new Refusal(`no channel named "${name}"`);
  return channel;
}

export function listChannels(deps: Pick<ServiceDeps, 'stores'>): Promise<Channel[]> {
  return deps.stores.channels.listChannels();
}
