import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { Migration20261129090000ChannelViewTally } from '../../db/migrations/Migration20261129090000ChannelViewTally.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { Platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';

// A location's and an owner's status come from `channel_view_tally` (db/catalogue/derived-status.ts):
// how many of a channel's property views name each location and owner, by status. The triggers
// on `channel_resource` keep it; it must always equal counting the views themselves.

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ orm, ctx, host } = await apiTestBed());
});

type Count = { channel_id: string; kind: string; internal_id: string; status: string; properties: number };

/** The tally's non-zero counts. */
async function tally(): Promise<Count[]> {
  return orm.em.fork().execute<Count[]>(
    `select channel_id, kind, internal_id, status, properties from channel_view_tally where properties <> 0
      order by channel_id, kind, internal_id, status`,
  );
}

/** The same counts, by reading every property view. */
async function counted(): Promise<Count[]> {
  return orm.em.fork().execute<Count[]>(
    `select r.channel_id, k.kind, k.internal_id, r.status, count(*)::int as properties from channel_resource r
      cross join lateral (values ('location', r.location_id), ('owner', r.owner_id)) as k(kind, internal_id)
      where r.kind = 'property' and k.internal_id is not null
      group by r.channel_id, k.kind, k.internal_id, r.status
      order by r.channel_id, k.kind, k.internal_id, r.status`,
  );
}

test('the tally equals the views counted after each kind of write', async () => {
  const a = (await channelWithKey(ctx)).channel.name;
  const b = (await channelWithKey(ctx)).channel.name;
  await host.organization('vt-org');
  for (const owner of ['vt-own1', 'vt-own2']) await host.owner(owner, { organization: 'vt-org' });
  await host.location('vt-loc1', { organization: 'vt-org', owner: 'vt-own1' });
  await host.location('vt-loc2', { organization: 'vt-org', owner: 'vt-own2' });
  const at1 = { location: 'vt-loc1', owner: 'vt-own1' };
  const steps: [string, () => Promise<unknown>][] = [
    [
      'two properties shown',
      async () => {
        await host.property('vt-p1', at1);
        await host.property('vt-p2', at1);
        await host.distribute('vt-p1', [a, b]);
        await host.distribute('vt-p2', [a]);
      },
    ],
    ['one becomes inactive', () => host.property('vt-p2', { ...at1, status: 'inactive' })],
    [
      'one moves to another location and owner',
      () => host.property('vt-p1', { location: 'vt-loc2', owner: 'vt-own2' }),
    ],
    ['one is withdrawn from a channel', () => host.distribute('vt-p1', [a])],
    ['one is deleted', () => host.remove('properties', 'vt-p2')],
  ];
  let last: Count[] = [];
  for (const [step, write] of steps) {
    await write();
    const now = await tally();
    expect(now, step).toEqual(await counted());
    expect(now, `${step} changed the counts`).not.toEqual(last);
    last = now;
  }
});

test('the migration counts the views an installation already has', async () => {
  const { channel } = await channelWithKey(ctx);
  await host.organization('vm-org');
  await host.owner('vm-own', { organization: 'vm-org' });
  await host.location('vm-loc', { organization: 'vm-org', owner: 'vm-own' });
  for (const [ref, status] of [
    ['vm-p1', 'active'],
    ['vm-p2', 'inactive'],
    ['vm-p3', 'active'],
  ] as const) {
    await host.property(ref, { location: 'vm-loc', owner: 'vm-own', status });
    await host.distribute(ref, [channel.name]);
  }
  await host.distribute('vm-p3', []);
  const expected = await counted();
  expect(expected.length).toBeGreaterThan(0);

  // The schema as it was before the migration, with its views.
  const em = orm.em.fork();
  for (const event of ['insert', 'update', 'delete'])
    await em.execute(`drop trigger "channel_resource_tally_${event}" on "channel_resource"`);
  await em.execute('drop function "channel_view_tally_fn"()');
  await em.execute('drop table "channel_view_tally"');
  await em.execute(
    'create index "channel_resource_channel_id_location_id_index" on "channel_resource" ("channel_id", "location_id")',
  );
  await em.execute(
    'create index "channel_resource_channel_id_owner_id_index" on "channel_resource" ("channel_id", "owner_id")',
  );

  const migration = new Migration20261129090000ChannelViewTally(orm.em.getDriver(), orm.config);
  migration.up();
  for (const query of migration.getQueries()) await migration.execute(query);
  expect(await tally()).toEqual(expected);
  // And the triggers are back: a write after the migration keeps the counts.
  await host.distribute('vm-p3', [channel.name]);
  expect(await tally()).toEqual(await counted());
});
