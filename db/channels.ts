import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ChannelSchema, type Channel } from './entities/index.ts';

export function findChannelByName(
  em: EntityManager,
  name: string,
  options: { lock?: boolean } = {},
): Promise<Channel | null> {
  return em.findOne(ChannelSchema, { name }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
}

export async function channelNameTaken(em: EntityManager, name: string): Promise<boolean> {
  return (await em.count(ChannelSchema, { name })) > 0;
}

export type NewChannel = Omit<Channel, 'status' | 'suspendedAt' | 'webhooksSuspendedAt'>;

/** Adds an active channel to the unit of work; it is written by the caller's flush. */
export function addChannel(em: EntityManager, channel: NewChannel): Channel {
  return em.create(ChannelSchema, { ...channel, status: 'active', suspendedAt: null, webhooksSuspendedAt: null });
}

export function listChannels(em: EntityManager): Promise<Channel[]> {
  return em.find(ChannelSchema, {}, { orderBy: { name: 'asc' } });
}
