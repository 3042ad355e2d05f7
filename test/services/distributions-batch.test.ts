import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { DistributionRefused, getDistribution, putDistributions } from '../../services/distribution.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { Platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';

// `putDistributions`: many properties distributed in one transaction and one re-projection, each
// checked as `putDistribution` checks it; the first refused refuses the batch.

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ orm, ctx, host } = await apiTestBed());
});

/** A fresh channel and `count` undistributed properties under one location and owner. */
async function undistributed(count: number): Promise<{ channel: string; channelId: string; refs: string[] }> {
  const { channel } = await channelWithKey(ctx);
  const prefix = channel.name;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  const refs = Array.from({ length: count }, (_, i) => `${prefix}-p${i}`);
  for (const ref of refs) await host.property(ref, { location: `${prefix}-loc`, owner: `${prefix}-own` });
  const [row] = await orm.em.fork().execute<{ id: string }[]>('select id from channel where name = ?', [prefix]);
  return { channel: prefix, channelId: row!.id, refs };
}

const events = (channelId: string) =>
  orm.em
    .fork()
    .execute<{ type: string; occurred_at: string; data: { id: string } }[]>(
      'select type, occurred_at, data from event where channel_id = ? order by position',
      [channelId],
    );

test('a batch stores each distribution and re-projects them together under one log stamp; again, nothing', async () => {
  const { channel, channelId, refs } = await undistributed(3);
  const items = refs.map((ref) => ({ ref, input: { channels: [channel] } }));

  expect(await putDistributions(ctx, items)).toEqual(refs.map((ref) => ({ property: ref, channels: [channel] })));

  for (const ref of refs) expect((await getDistribution(ctx, ref)).channels).toEqual([channel]);
  const log = await events(channelId);
  // One re-projection: each property followed by its availability, then their location and owner once.
  expect(log.map((event) => event.type)).toEqual([
    'property.distributed',
    'availability.updated',
    'property.distributed',
    'availability.updated',
    'property.distributed',
    'availability.updated',
    'location.updated',
    'owner.updated',
  ]);
  expect(log[1]!.data.id).toBe(log[0]!.data.id);
  expect(new Set(log.map((event) => String(event.occurred_at))).size).toBe(1);

  await putDistributions(ctx, items);
  expect(await events(channelId)).toHaveLength(log.length);
});

test('the first property refused refuses the batch, named, and nothing is distributed', async () => {
  const { channel, channelId, refs } = await undistributed(2);
  const refusal = (items: { ref: string; input: { channels: string[] } }[]) =>
    putDistributions(ctx, items).then(
      () => expect.fail('the batch was accepted'),
      (error: unknown) => error,
    );

  const missing = await refusal([
    { ref: refs[0]!, input: { channels: [channel] } },
    { ref: `${channel}-nowhere`, input: { channels: [channel] } },
  ]);
  expect(missing).toBeInstanceOf(DistributionRefused);
  expect(missing).toMatchObject({ ref: `${channel}-nowhere`, problem: { code: 'not_found' } });

  const unknown = await refusal([
    { ref: refs[0]!, input: { channels: [channel] } },
    { ref: refs[1]!, input: { channels: [channel, `${channel}-none`] } },
  ]);
  expect(unknown).toMatchObject({ ref: refs[1], problem: { code: 'invalid_parameters' } });

  for (const ref of refs) expect((await getDistribution(ctx, ref)).channels).toEqual([]);
  expect(await events(channelId)).toEqual([]);
});
