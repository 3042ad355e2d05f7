import type { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import { beforeAll, expect, test } from 'vitest';
import { availabilityActivities } from '../../activities/availability.ts';
import { ROLL_BATCH } from '../../db/availability.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { channelShown } from '../support/catalogue.ts';
import type { TestClock } from '../support/clock.ts';
import { cloneProperty, templateOf } from '../support/clones.ts';
import { activityDeps } from '../support/worker.ts';

// The roll activity of a zone of several batches, against a real Postgres: it heartbeats after
// each batch it commits, so Temporal notices a lost worker within the heartbeat timeout, and a
// retry goes on after the last batch heartbeat instead of from the zone's first property.

const ZONE = 'Europe/Bucharest';
/** Two whole batches and part of a third. */
const PROPERTIES = 2 * ROLL_BATCH + 20;
const DAY = 86_400_000;

let orm: MikroORM;
let clock: TestClock;
let activities: ReturnType<typeof availabilityActivities>;
let channelId: string;
/** The zone's property ids in the roll's order. */
let ids: string[];

beforeAll(async () => {
  const bed = await apiTestBed({ taskQueue: 'roll-heartbeat' });
  ({ orm, clock } = bed);
  const { ref } = await channelShown(bed.ctx, bed.host, ['t']);
  const template = await templateOf(orm.em.fork(), ref('t'));
  ({ channelId } = template);
  await cloneProperty(orm.em.fork(), template, 1, PROPERTIES - 1);
  activities = availabilityActivities(activityDeps(orm, { client: bed.temporal, taskQueue: bed.taskQueue! }));
  ids = (
    await orm.em
      .fork()
      .execute<{ property_id: string }[]>(
        'select property_id from ari_property where timezone = ? order by property_id',
        [ZONE],
      )
  ).map((row) => row.property_id);
});

interface Heartbeat {
  after: string | null;
  properties: number;
  rolled: number;
}

/** The activity in an activity context with `heartbeatDetails` (a retry's), its heartbeats recorded. */
function attempt(heartbeatDetails?: Heartbeat): { env: MockActivityEnvironment; beats: Heartbeat[] } {
  const env = new MockActivityEnvironment(heartbeatDetails ? { heartbeatDetails } : {});
  const beats: Heartbeat[] = [];
  env.on('heartbeat', (details: Heartbeat) => beats.push(details));
  return { env, beats };
}

/** The roll activity of the zone for the instant `at`, in `env`'s activity context. */
function roll(env: MockActivityEnvironment, at: number) {
  return env.run((zone: string, nowMs: number) => activities.rollHorizon(zone, nowMs), ZONE, at);
}

/** The zone's roll announcements since position `after` of the channel's log, by property. */
async function announced(after: number): Promise<string[]> {
  const rows = await orm.em.fork().execute<{ property: string }[]>(
    `select r.internal_id as property from event e join channel_resource r on r.channel_id = e.channel_id and r.kind = 'property' and r.external_id = e.data::jsonb->>'id'
        where e.channel_id = ? and e.position > ? and e.type = 'availability.updated' order by e.position`,
    [channelId, after],
  );
  return rows.map((row) => row.property);
}

async function lastPosition(): Promise<number> {
  const [row] = await orm.em
    .fork()
    .execute<{ last: string }[]>('select last_position as last from channel_log where channel_id = ?', [channelId]);
  return Number(row!.last);
}

test(`the roll of ${PROPERTIES} properties heartbeats once per batch of ${ROLL_BATCH} it commits, with where it got to`, async () => {
  const tomorrow = clock.now().getTime() + DAY;
  const { env, beats } = attempt();
  expect(await roll(env, tomorrow)).toMatchObject({
    properties: PROPERTIES,
    rolled: PROPERTIES,
  });
  expect(beats).toEqual([
    { after: ids[ROLL_BATCH - 1], properties: ROLL_BATCH, rolled: ROLL_BATCH },
    { after: ids[2 * ROLL_BATCH - 1], properties: 2 * ROLL_BATCH, rolled: 2 * ROLL_BATCH },
    { after: ids.at(-1), properties: PROPERTIES, rolled: PROPERTIES },
  ]);
});

test('a retry goes on after the last batch heartbeat: each property is rolled and announced once, and the counts cover the whole zone', async () => {
  const dayAfter = clock.now().getTime() + 2 * DAY;
  const before = await lastPosition();

  // The first attempt is lost after its first batch committed (cancelled, as Temporal does when
  // its heartbeat times out): the batches after it are not run.
  const lost = attempt();
  lost.env.once('heartbeat', () => lost.env.cancel());
  await expect(roll(lost.env, dayAfter)).rejects.toThrow();
  expect(lost.beats).toEqual([{ after: ids[ROLL_BATCH - 1], properties: ROLL_BATCH, rolled: ROLL_BATCH }]);
  expect(await announced(before)).toEqual(ids.slice(0, ROLL_BATCH));

  // The retry, given the last heartbeat, starts at the second batch.
  const retry = attempt(lost.beats.at(-1));
  expect(await roll(retry.env, dayAfter)).toMatchObject({
    properties: PROPERTIES,
    rolled: PROPERTIES,
  });
  expect(retry.beats.map((beat) => beat.after)).toEqual([ids[2 * ROLL_BATCH - 1], ids.at(-1)]);
  expect(await announced(before)).toEqual(ids);

  // Run again from the start for the same day: idempotent, nothing more.
  expect(await roll(attempt().env, dayAfter)).toMatchObject({
    properties: PROPERTIES,
    rolled: 0,
  });
  expect(await announced(before)).toEqual(ids);
});
