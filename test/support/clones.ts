import type { EntityManager } from '@mikro-orm/postgresql';

/** Copies of a property, row for row, for tests of how a cost grows with the data (bench/property-clones.ts). */
export { cloneProperty } from '../../bench/property-clones.ts';

/** The property under `ref` and the channel it is shown to, to copy with `cloneProperty`. */
export async function templateOf(em: EntityManager, ref: string): Promise<{ id: string; channelId: string }> {
  const [row] = await em.execute<{ id: string; channel_id: string }[]>(
    'select p.id, d.channel_id from property p join distribution d on d.property_id = p.id where p.ref = ?',
    [ref],
  );
  if (!row) throw new Error(`no property ${ref} shown to a channel`);
  return { id: row.id, channelId: row.channel_id };
}
