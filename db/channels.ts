import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ChannelSchema, type Channel as ChannelEntity } from './entities/index.ts';

export type ChannelStatus = 'active' | 'suspended';

/** A channel as it was read: a record, not an entity of the unit of work. */
export interface Channel {
  id: string;
  /** The channel's name in the interface (`channel` of GET /channel); also the CLI handle. */
  name: string;
  status: ChannelStatus;
  rateLimitPerMinute: number;
  redirectUrl: string | null;
  technicalContactEmail: string | null;
  createdAt: Date;
  suspendedAt: Date | null;
  /** Set by operators: the channel may not register or enable webhook endpoints, and is sent nothing. */
  webhooksSuspendedAt: Date | null;
}

export function channelRecord(row: ChannelEntity): Channel {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    rateLimitPerMinute: row.rateLimitPerMinute,
    redirectUrl: row.redirectUrl ?? null,
    technicalContactEmail: row.technicalContactEmail ?? null,
    createdAt: row.createdAt,
    suspendedAt: row.suspendedAt ?? null,
    webhooksSuspendedAt: row.webhooksSuspendedAt ?? null,
  };
}

export async function findChannelByName(
  em: EntityManager,
  name: string,
  options: { lock?: boolean } = {},
): Promise<Channel | null> {
  const row = await em.findOne(ChannelSchema, { name }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  return row && channelRecord(row);
}

export async function channelNameTaken(em: EntityManager, name: string): Promise<boolean> {
  return (await em.count(ChannelSchema, { name })) > 0;
}

export type NewChannel = Omit<Channel, 'status' | 'suspendedAt' | 'webhooksSuspendedAt'>;

/** Inserts an active channel. */
export async function insertChannel(em: EntityManager, channel: NewChannel): Promise<Channel> {
  const row = em.create(ChannelSchema, { ...channel, status: 'active', suspendedAt: null, webhooksSuspendedAt: null });
  await em.flush();
  return channelRecord(row);
}

/** What changes of a channel's row: the fields named, the others as they are. */
export type ChannelChange = Partial<
  Pick<
    Channel,
    'rateLimitPerMinute' | 'redirectUrl' | 'technicalContactEmail' | 'status' | 'suspendedAt' | 'webhooksSuspendedAt'
  >
>;

/** Changes the channel named `name`; the channel as it is now, or null when none has that name. */
export async function changeChannel(em: EntityManager, name: string, change: ChannelChange): Promise<Channel | null> {
  const row = await em.findOne(ChannelSchema, { name });
  if (!row) return null;
  em.assign(row, Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)));
  await em.flush();
  return channelRecord(row);
}

export async function listChannels(em: EntityManager): Promise<Channel[]> {
  return (await em.find(ChannelSchema, {}, { orderBy: { name: 'asc' } })).map(channelRecord);
}
