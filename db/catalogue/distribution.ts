import type { EntityManager } from '@mikro-orm/postgresql';
import { ChannelSchema } from '../entities/index.ts';
import { pgArray } from '../sql.ts';

/** The host's choice of channels for each property: one `distribution` row per (property, channel). */

/** Ids of the channels with these names; a name without a channel is left out. */
export async function channelIdsByName(em: EntityManager, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const channels = await em.find(ChannelSchema, { name: { $in: [...names] } }, { fields: ['id', 'name'] });
  return new Map(channels.map((channel) => [channel.name, channel.id]));
}

/** Names of the channels a property is distributed to, in name order. */
export async function distributionOf(em: EntityManager, propertyId: string): Promise<string[]> {
  const rows = await em.execute<{ name: string }[]>(
    'select c.name from distribution d join channel c on c.id = d.channel_id where d.property_id = ? order by c.name',
    [propertyId],
  );
  return rows.map((row) => row.name);
}

/** Makes these channels the property's whole distribution. */
export async function setDistribution(
  tx: EntityManager,
  propertyId: string,
  channelIds: readonly string[],
  now: Date,
): Promise<void> {
  await tx.execute('delete from distribution where property_id = ? and not (channel_id = any(?::uuid[]))', [
    propertyId,
    pgArray(channelIds),
  ]);
  await tx.execute(
    `insert into distribution (property_id, channel_id, created_at) select ?, c, ? from unnest(?::uuid[]) as c on conflict do nothing`,
    [propertyId, now, pgArray(channelIds)],
  );
}
