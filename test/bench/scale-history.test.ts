import pg from 'pg';
import { decodeTime } from 'ulid';
import { beforeAll, expect, test } from 'vitest';
import { cloneProperty } from '../../bench/property-clones.ts';
import {
  loadDeliveries,
  loadEvents,
  numberProperties,
  settleViews,
  type HistoryContext,
} from '../../bench/scale-history.ts';
import { BLOCKS, historyEnd, ROLL_BATCH, scalePlan, type ScalePlan } from '../../bench/scale-plan.ts';
import { insertEndpoint } from '../../db/webhook-endpoints.ts';
import { ID_PATTERNS, newExternalId } from '../../domain/catalogue/ids.ts';
import { webhookBody } from '../../domain/webhooks/sending.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { onCleanup } from '../support/cleanup.ts';
import { templateOf } from '../support/clones.ts';
import { daysUpTo } from '../support/partitions.ts';

// `bench:scale` loads millions of rows in SQL (bench/scale-history.ts); its figures hold only if
// each row is one the service would have written. Here a tenth of its smallest size (100
// properties, 37 days of a log, the deliveries of an endpoint) is loaded beside rows the service
// wrote, and held to the service's own rules: commit order, ids, bodies, views.

let sql: pg.Client;
let plan: ScalePlan;
let context: HistoryContext;

interface EventRow {
  position: string;
  id: string;
  type: string;
  occurred_at: Date;
  data: string;
}

beforeAll(async () => {
  const bed = await apiTestBed();
  const builtAt = bed.clock.now();
  plan = scalePlan(0.1, builtAt);
  await daysUpTo(bed.orm, builtAt, new Date(plan.startMs));
  const em = bed.orm.em.fork();
  const { channel } = await bed.channel();
  // The history's positions are set aside before the service writes (bench/scale-build.ts).
  const end = historyEnd(plan);
  await em.execute('insert into channel_log (channel_id, last_stamp, last_position) values (?, ?, ?)', [
    channel.id,
    new Date(end.stampMs),
    end.position,
  ]);
  const prefix = channel.name;
  await bed.host.organization(`${prefix}-org`);
  await bed.host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await bed.host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  await bed.host.property(`${prefix}-t`, { location: `${prefix}-loc`, owner: `${prefix}-own` });
  await bed.host.distribute(`${prefix}-t`, [channel.name]);
  const template = await templateOf(em, `${prefix}-t`);
  const endpointId = newExternalId('webhook', builtAt.getTime());
  await insertEndpoint(em, {
    id: endpointId,
    channelId: channel.id,
    url: 'https://receiver.example/hook',
    events: ['property.*'],
    description: null,
    sealedSecret: 'sealed',
    now: builtAt,
  });
  context = {
    channelId: channel.id,
    channelName: channel.name,
    endpointId,
    templateId: template.id,
    attempts: {
      delivered: { statusCode: 204, error: null, excerpt: null },
      failed: { statusCode: 503, error: 'http_status', excerpt: null },
    },
  };
  await cloneProperty(em, template, 1, plan.properties - 1, { nights: false });
  sql = new pg.Client({ connectionString: bed.databaseUrl });
  await sql.connect();
  onCleanup(() => sql.end());
  await numberProperties(sql, plan, context);
  await loadEvents(sql, plan, context, 0, BLOCKS - 1);
  await loadDeliveries(sql, plan, context, 1, BLOCKS - 1);
  await sql.query('analyze event, webhook_delivery, channel_resource, ari_property');
  await settleViews(sql, plan, context);
});

const history = async () =>
  (
    await sql.query<EventRow>(
      'select position, id, type, occurred_at, data::text as data from event where channel_id = $1 and position <= $2 order by position',
      [context.channelId, plan.events],
    )
  ).rows;

test('the log runs from 1 to the history’s end with no gap; a stamp never goes back, and only a roll’s transaction shares one', async () => {
  const events = await history();
  expect(events.map((event) => Number(event.position))).toEqual(Array.from({ length: plan.events }, (_, i) => i + 1));
  const [after] = (
    await sql.query<{ occurred_at: Date }>('select occurred_at from event where channel_id = $1 and position = $2', [
      context.channelId,
      plan.events + 1,
    ])
  ).rows;
  const problems: string[] = [];
  let shared = 1;
  for (let i = 1; i < events.length; i += 1) {
    const [before, event] = [events[i - 1]!, events[i]!];
    const step = event.occurred_at.getTime() - before.occurred_at.getTime();
    shared = step === 0 ? shared + 1 : 1;
    if (step < 0) problems.push(`${event.position} goes back`);
    const roll = event.type === 'availability.updated' && before.type === 'availability.updated';
    if (step === 0 && (!roll || shared > ROLL_BATCH))
      problems.push(`${event.position} shares ${before.position}'s stamp`);
  }
  expect(problems).toEqual([]);
  // The service's own first write comes after the history, a millisecond at least.
  expect(after!.occurred_at.getTime()).toBeGreaterThan(events.at(-1)!.occurred_at.getTime());
});

test('every id has the service’s shape, its time the instant its write or dispatch was made', async () => {
  const events = await history();
  const badEvents = events.filter((event) => {
    const lag = decodeTime(event.id.slice(4).toUpperCase()) - event.occurred_at.getTime();
    return !ID_PATTERNS.event.test(event.id) || lag < 0 || lag >= 1_100;
  });
  expect(badEvents.map((event) => event.position)).toEqual([]);
  const deliveries = (
    await sql.query<{ id: string; created_at: Date }>(
      'select id, created_at from webhook_delivery where endpoint_id = $1',
      [context.endpointId],
    )
  ).rows;
  expect(deliveries).toHaveLength(plan.deliveries);
  const badDeliveries = deliveries.filter(
    (delivery) =>
      !ID_PATTERNS.delivery.test(delivery.id) ||
      decodeTime(delivery.id.slice(4).toUpperCase()) !== delivery.created_at.getTime(),
  );
  expect(badDeliveries).toEqual([]);
});

test('an event’s data is its writer’s JSON, and a delivery’s body its event’s webhookBody, byte for byte', async () => {
  const events = await history();
  const shapes = new Set(events.map((event) => `${event.type} ${Object.keys(JSON.parse(event.data)).join(',')}`));
  expect([...shapes].sort()).toEqual(['availability.updated object,id,from,to', 'property.updated object,id,version']);
  const unlike = events.filter((event) => {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    return (
      JSON.stringify(data) !== event.data ||
      (event.type === 'property.updated' && data.version !== Number(event.position))
    );
  });
  expect(unlike.map((event) => event.position)).toEqual([]);
  const { rows } = await sql.query<EventRow & { payload: string }>(
    `select e.id, e.type, e.occurred_at, e.data::text as data, d.payload from webhook_delivery d join event e on e.id = d.event_id
      where d.endpoint_id = $1 and e.channel_id = $2`,
    [context.endpointId, context.channelId],
  );
  expect(rows).toHaveLength(plan.deliveries);
  const body = (row: EventRow) =>
    webhookBody({
      id: row.id,
      type: row.type,
      occurredAt: row.occurred_at,
      channel: context.channelName,
      data: JSON.parse(row.data) as Record<string, unknown>,
    });
  expect(rows.filter((row) => row.payload !== body(row)).map((row) => row.id)).toEqual([]);
});

test('a dispatch’s deliveries share one instant, and their ids, sorted, follow the log', async () => {
  const { rows } = await sql.query<{ created_at: Date; ids: string[]; positions: string[] }>(
    `select d.created_at, array_agg(d.id order by d.id) as ids, array_agg(e.position order by d.id) as positions
       from webhook_delivery d join event e on e.id = d.event_id
      where d.endpoint_id = $1 and e.channel_id = $2 group by d.created_at having count(*) > 1`,
    [context.endpointId, context.channelId],
  );
  expect(rows.length).toBeGreaterThan(plan.deliveries / 10);
  const disordered = rows.filter((row) => {
    const positions = row.positions.map(Number);
    return positions.some((position, i) => i > 0 && position < positions[i - 1]!);
  });
  expect(disordered).toEqual([]);
});

test('each delivery was attempted: once and delivered, or failed and retried a minute later', async () => {
  const { rows } = await sql.query<{
    attempts: number;
    numbers: number[];
    codes: number[];
    gap: number;
    last: boolean;
  }>(
    `select d.attempts, array_agg(a.number order by a.number) as numbers, array_agg(a.status_code order by a.number) as codes,
            extract(epoch from max(a.attempted_at) - min(a.attempted_at)) as gap, d.last_attempt_at = max(a.attempted_at) as last
       from webhook_delivery d join webhook_attempt a on a.delivery_id = d.id
      where d.endpoint_id = $1 and d.state = 'delivered' group by d.id, d.attempts, d.last_attempt_at`,
    [context.endpointId],
  );
  expect(rows).toHaveLength(plan.deliveries);
  const unlike = rows.filter(
    (row) =>
      !row.last ||
      !(
        (row.attempts === 1 && row.codes.join() === '204') ||
        (row.attempts === 2 && row.codes.join() === '503,204' && row.gap >= 48 && row.gap <= 72)
      ),
  );
  expect(unlike).toEqual([]);
  expect(rows.filter((row) => row.attempts === 2).length).toBeGreaterThan(0);
});

test('each copy’s record stands at the last property.updated naming it, its availability at its last change', async () => {
  const { rows } = await sql.query<{ external_id: string }>(
    `select r.external_id from channel_resource r join ari_property a on a.property_id = r.internal_id
       left join lateral (select max(position) as position, max(occurred_at) as at from event
                           where channel_id = r.channel_id and position <= $2 and type = 'property.updated' and data->>'id' = r.external_id) view on true
       left join lateral (select count(*) as n, max(occurred_at) as at from event
                           where channel_id = r.channel_id and position <= $2 and type = 'availability.updated' and data->>'id' = r.external_id) ari on true
      where r.channel_id = $1 and r.kind = 'property' and r.internal_id <> $3
        and not (r.version = view.position and r.updated_at = view.at and a.version = ari.n + 1 and a.updated_at = ari.at)`,
    [context.channelId, plan.events, context.templateId],
  );
  expect(rows).toEqual([]);
});
