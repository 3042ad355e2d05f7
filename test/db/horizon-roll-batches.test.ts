import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { horizonEnd } from '../../domain/availability/nights.ts';
import { localDate } from '../../domain/time.ts';
import { rollHorizon } from '../../services/availability.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { cloneProperty, templateOf } from '../support/clones.ts';

// The daily roll of a zone commits in batches: a platform write for a channel that sees the zone
// waits for one batch's log lock at most, never for the whole zone, and the roll still announces
// each property's new night once, in commit order, and is idempotent.

const ZONE = 'Europe/Bucharest';
const PROPERTIES = 1_000;
const BATCH = 50;

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;
let clock: TestClock;

beforeAll(async () => {
  ({ orm, ctx, host, clock } = await apiTestBed());
});

const sql = <T>(text: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(text, params);

test(`a platform write during the roll of ${PROPERTIES} properties waits for one batch, not the zone`, async () => {
  const { ref } = await channelShown(ctx, host, ['t']);
  // The channel's name: its organization, owner and location are named after it.
  const prefix = ref('t').slice(0, -'-t'.length);
  const template = await templateOf(orm.em.fork(), ref('t'));
  const { channelId } = template;
  await cloneProperty(orm.em.fork(), template, 1, PROPERTIES - 1);
  // A property of the same channel in another zone: its write needs the channel's log lock only.
  await host.location(`${prefix}-tokyo`, {
    organization: `${prefix}-org`,
    owner: `${prefix}-own`,
    timezone: 'Asia/Tokyo',
  });
  const elsewhere = { location: `${prefix}-tokyo`, owner: `${prefix}-own` };
  await host.property(`${prefix}-w`, elsewhere);
  await host.distribute(`${prefix}-w`, [prefix]);
  const [{ last: before } = { last: '0' }] = await sql<{ last: string }>(
    'select last_position as last from channel_log where channel_id = ?',
    [channelId],
  );

  // The next local day: every property of the zone has one night to add.
  const tomorrow = new Date(clock.now().getTime() + 86_400_000);
  const roll = rollHorizon({ orm }, ZONE, { now: () => tomorrow }, BATCH);
  let rollDone = false;
  void roll.finally(() => (rollDone = true));
  const rolledSoFar = async () =>
    Number(
      (
        await sql<{ n: string }>(
          `select count(*) as n from event where channel_id = ? and position > ? and type = 'availability.updated'`,
          [channelId, before],
        )
      )[0]!.n,
    );
  // Once the roll has committed something, a platform write for the channel.
  while (!rollDone && (await rolledSoFar()) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await host.property(`${prefix}-w`, { ...elsewhere, name: { ro: 'Alt nume', en: 'Another name' } });
  const outcome = await roll;

  const events = await sql<{ position: string; type: string; property: string }>(
    `select position, type, data::jsonb->>'id' as property from event where channel_id = ? and position > ? order by position`,
    [channelId, before],
  );
  const written = events.find((event) => event.type === 'property.updated');
  const rolled = events.filter((event) => event.type === 'availability.updated');
  // The write committed while the roll was still going: roll events on both sides of it.
  expect(rolled.filter((event) => Number(event.position) > Number(written!.position)).length).toBeGreaterThan(0);
  expect(rolled.filter((event) => Number(event.position) < Number(written!.position)).length).toBeGreaterThan(0);

  // Every property rolled once, announced once, to the new horizon.
  expect(outcome).toEqual({ properties: PROPERTIES, rolled: PROPERTIES });
  expect(new Set(rolled.map((event) => event.property)).size).toBe(PROPERTIES);
  expect(rolled).toHaveLength(PROPERTIES);
  const end = horizonEnd(localDate(tomorrow, ZONE));
  const [horizons] = await sql<{ short: string }>(
    `select count(*) as short from ari_property where timezone = ? and horizon_end <> ?::date`,
    [ZONE, end],
  );
  expect(Number(horizons!.short)).toBe(0);
  // Positions follow commit order: one after the other, none twice.
  expect(events.map((event) => Number(event.position))).toEqual(events.map((_, i) => Number(before) + i + 1));

  // Run again for the same day: nothing more.
  expect(await rollHorizon({ orm }, ZONE, { now: () => tomorrow }, BATCH)).toEqual({
    properties: PROPERTIES,
    rolled: 0,
  });
  expect(await rolledSoFar()).toBe(PROPERTIES);
});
