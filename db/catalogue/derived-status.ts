import type { EntityManager } from '@mikro-orm/postgresql';
import { derivedStatus } from '../../domain/catalogue/projection.ts';
import type { ResourceStatus } from '../../domain/catalogue/status.ts';

/**
 * A location's or an owner's status in a channel's view, from its properties there
 * (`derivedStatus`). The statuses among them come from `channel_view_tally`: the database keeps,
 * per (channel, location or owner, status), how many of the channel's property views name it
 * (triggers on `channel_resource`, migration ChannelViewTally). At most four rows by the primary
 * key, however many properties share the location: a write no longer reads its siblings.
 */
export async function viewDerivedStatus(
  tx: EntityManager,
  channelId: string,
  kind: 'location' | 'owner',
  id: string,
): Promise<ResourceStatus | null> {
  const rows = await tx.execute<{ status: ResourceStatus }[]>(
    `select status from channel_view_tally where channel_id = ? and kind = ? and internal_id = ? and properties > 0`,
    [channelId, kind, id],
  );
  return derivedStatus(rows.map((row) => row.status));
}
