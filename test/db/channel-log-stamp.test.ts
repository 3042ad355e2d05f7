import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { withChannelLog } from '../../db/catalogue/channel-log.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';

// The stamps a channel's writers take under its log lock: strictly later from one transaction to
// the next, even within one millisecond of the clock, and the same throughout one transaction.

let orm: MikroORM;
let clock: TestClock;
let ctx: AdminContext;

beforeAll(async () => {
  ({ clock, ctx, orm } = await apiTestBed());
});

/** The stamps one transaction takes by locking the channel's log `times` times. */
function stampsOf(channelId: string, times: number): Promise<number[]> {
  return orm.em.fork().transactional(async (tx) => {
    const stamps: number[] = [];
    for (let i = 0; i < times; i += 1)
      stamps.push(await withChannelLog(tx, channelId, clock.now(), (log) => Promise.resolve(log.stamp.getTime())));
    return stamps;
  });
}

test('each transaction stamps a millisecond past the last while the clock stands still, and keeps its stamp across its locks', async () => {
  const { channel } = await channelWithKey(ctx);
  const now = clock.now().getTime();
  const first = await stampsOf(channel.id, 3);
  const second = await stampsOf(channel.id, 200);
  const third = await stampsOf(channel.id, 1);
  expect(first).toEqual([now, now, now]);
  expect(new Set(second)).toEqual(new Set([now + 1]));
  expect(third).toEqual([now + 2]);
});

test('the clock ahead of the last stamp gives the clock', async () => {
  const { channel } = await channelWithKey(ctx);
  await stampsOf(channel.id, 1);
  clock.advance(1000);
  expect(await stampsOf(channel.id, 1)).toEqual([clock.now().getTime()]);
});

test('a transaction rolled back leaves the stamp where it was', async () => {
  const { channel } = await channelWithKey(ctx);
  const [before] = await stampsOf(channel.id, 1);
  await expect(
    orm.em.fork().transactional(async (tx) => {
      await withChannelLog(tx, channel.id, clock.now(), async () => {});
      throw new Error('abandoned');
    }),
  ).rejects.toThrow('abandoned');
  expect(await stampsOf(channel.id, 1)).toEqual([before! + 1]);
});
