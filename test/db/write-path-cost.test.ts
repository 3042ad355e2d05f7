import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import { cloneProperty, templateOf } from '../support/clones.ts';
import { readCosts, statementsOf, type Cost } from '../support/statement-costs.ts';

// A platform write costs the same however many properties share its owner and location: every
// read it sends touches about as many buffers with ten times the properties, and none reads a
// table that grows with the catalogue whole. Measured by PostgreSQL (EXPLAIN ANALYZE BUFFERS of
// the very statements the write sent), on copies of a property the service wrote.

const SMALL = 2_000;
const LARGE = 20_000;
/**
 * Tables that grow here; a small one (channels, owners, locations) may be read whole. The copies
 * have no nights (the write reads only its own property's), so `ari_night` stays small.
 */
const GROWING = ['channel_resource', 'channel_id', 'property', 'distribution', 'ari_property', 'event'];

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ orm, ctx, host } = await apiTestBed());
});

/** The reads a write of the property sent, and what each cost. */
async function writeCosts(ref: string, units: number): Promise<Map<string, Cost>> {
  const prefix = ref.slice(0, -'-t'.length);
  const { sent } = await statementsOf(orm, () =>
    host.property(ref, { location: `${prefix}-loc`, owner: `${prefix}-own`, units }),
  );
  return readCosts(orm, sent);
}

test(`a property's write reads as much with ${LARGE} properties under its owner and location as with ${SMALL}`, async () => {
  // Another channel, shown a property of its own: the write must find its channels without
  // reading every channel's view.
  await channelShown(ctx, host, ['other']);
  const { ref } = await channelShown(ctx, host, ['t']);
  const copy = await templateOf(orm.em.fork(), ref('t'));

  await cloneProperty(orm.em.fork(), copy, 1, SMALL - 1, { nights: false });
  const small = await writeCosts(ref('t'), 2);
  await cloneProperty(orm.em.fork(), copy, SMALL, LARGE - 1, { nights: false });
  const large = await writeCosts(ref('t'), 3);

  expect([...large.keys()].sort()).toEqual([...small.keys()].sort());
  const grown = [...large].flatMap(([sql, cost]) => {
    const before = small.get(sql)!;
    const wholeTables = cost.seqScans.filter((table) => GROWING.includes(table));
    return wholeTables.length > 0 || cost.buffers > before.buffers * 1.5 + 4
      ? [{ sql: sql.replace(/\s+/g, ' '), buffers: [before.buffers, cost.buffers], wholeTables }]
      : [];
  });
  expect(grown).toEqual([]);
  const total = (costs: Map<string, Cost>) => [...costs.values()].reduce((sum, cost) => sum + cost.buffers, 0);
  expect(total(large)).toBeLessThanOrEqual(total(small) * 1.2);
});
