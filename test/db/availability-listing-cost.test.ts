import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { availabilityCandidates, type CandidateFilter } from '../../db/availability-candidates.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { cloneProperty, templateOf } from '../support/clones.ts';
import { explain, statementsOf, type Cost } from '../support/statement-costs.ts';

// A page of the availability change listing, tombstones included, costs the same however many
// properties the channel sees: the properties come through the change-order index, the tombstones
// through the index of the channel's tombstones in stamp order, read no further than the page's
// last property. Copies share one stamp, as a transaction that restamps many properties leaves
// them, which a scan of the channel's whole view by stamp would read all of. Measured by
// PostgreSQL: EXPLAIN ANALYZE BUFFERS of the page's statements.

const SMALL = 2_000;
const LARGE = 20_000;
const LIMIT = 101;
/** Tables that grow here. */
const GROWING = ['channel_resource', 'channel_id', 'property', 'distribution', 'ari_property'];

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;
let clock: TestClock;

beforeAll(async () => {
  ({ orm, ctx, host, clock } = await apiTestBed());
});

test(`a change listing with tombstones reads as much with ${LARGE} properties as with ${SMALL}`, async () => {
  const { ref } = await channelShown(ctx, host, ['t', 'w', 'd']);
  const template = await templateOf(orm.em.fork(), ref('t'));
  const [{ stamp } = { stamp: '' }] = await orm.em
    .fork()
    .execute<{ stamp: string }[]>('select updated_at::text as stamp from ari_property where property_id = ?', [
      template.id,
    ]);
  clock.advance(60_000);
  await host.distribute(ref('w'), []);
  await host.remove('properties', ref('d'));
  const { channelId } = template;

  // The page from the copies' stamp (full, its last property among the copies), and the one past them.
  const pages = async (): Promise<Map<string, Cost>> => {
    const [first] = await availabilityCandidates(orm.em.fork(), channelId, { since: new Date(stamp), limit: 1 });
    const filters: CandidateFilter[] = [
      { since: new Date(stamp), limit: LIMIT },
      {
        since: new Date(stamp),
        after: { stamp: first!.stamp, externalId: first!.externalId, inclusive: false },
        limit: LIMIT,
      },
      { since: new Date(clock.now().getTime() - 30_000), limit: LIMIT },
    ];
    const costs = new Map<string, Cost>();
    for (const [i, filter] of filters.entries()) {
      const { result, sent } = await statementsOf(orm, () => availabilityCandidates(orm.em.fork(), channelId, filter));
      if (i === 2)
        expect(result.map((listed) => (listed.tombstone ? listed.status : 'shown'))).toEqual(['withdrawn', 'deleted']);
      else expect(result).toHaveLength(LIMIT);
      // Each statement the read sent (its one statement opens with `with` when it lists tombstones).
      for (const [j, statement] of sent.entries())
        costs.set(`${i}.${j}: ${statement.sql}`, await explain(orm, statement));
    }
    return costs;
  };

  await cloneProperty(orm.em.fork(), template, 1, SMALL - 1, { nights: false });
  const small = await pages();
  await cloneProperty(orm.em.fork(), template, SMALL, LARGE - 1, { nights: false });
  const large = await pages();

  expect([...large.keys()].sort()).toEqual([...small.keys()].sort());
  expect(large.size).toBe(3);
  const grown = [...large].flatMap(([sql, cost]) => {
    const before = small.get(sql)!;
    const wholeTables = cost.seqScans.filter((table) => GROWING.includes(table));
    return wholeTables.length > 0 || cost.buffers > before.buffers * 1.5 + 4
      ? [{ sql: sql.replace(/\s+/g, ' '), buffers: [before.buffers, cost.buffers], wholeTables }]
      : [];
  });
  expect(grown).toEqual([]);
});
