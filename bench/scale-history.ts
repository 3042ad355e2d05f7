/**
 * `bench:scale`'s history in SQL (the timeline is bench/scale-plan.ts's): the channel's events,
 * the endpoint's deliveries and their attempts, each row as the service writes it (bench/log-rows.ts),
 * the views brought to the last event that names them, the night's roll appended before a run,
 * and the oldest days written again after a retention pass took them. Every statement runs on one
 * session of its own (`pg.Client`), through the parent tables only.
 */
import type pg from 'pg';
import {
  availabilityDataSql,
  catalogueDataSql,
  dateSql,
  externalIdSql,
  stampSql,
  ulidSql,
  webhookBodySql,
} from './log-rows.ts';
import {
  ATTEMPT_LAG_MS,
  BLOCKS,
  blockLength,
  failedFirstSql,
  RETRY_MS,
  ROLL_BATCH,
  placeSql,
  type ScalePlan,
} from './scale-plan.ts';

/** What the service wrote at T0 that the history names: the channel, its endpoint, the template. */
export interface HistoryContext {
  channelId: string;
  channelName: string;
  endpointId: string;
  templateId: string;
  /** An attempt the receiver answered 2xx, and one it answered 503, as the service recorded them. */
  attempts: { delivered: AttemptShape; failed: AttemptShape };
}

export interface AttemptShape {
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
}

const dayNumber = (msExpr: string) => `((${msExpr}) / 86400000)::int`;
const dateOfDay = (dayExpr: string) => dateSql(`(date '1970-01-01' + (${dayExpr})::int)`);

/**
 * `scale_property(p, external_id)`: property number p (0 the template, i its i-th copy) and its id
 * on the channel, for this session.
 */
export async function numberProperties(sql: pg.Client, plan: ScalePlan, context: HistoryContext): Promise<void> {
  await sql.query('drop table if exists scale_property');
  await sql.query(
    `create temp table scale_property as
     select 0 as p, external_id from channel_resource where channel_id = $1 and kind = 'property' and internal_id = $2
     union all
     select i, r.external_id from generate_series(1, $3::int - 1) as i
       join channel_resource r on r.channel_id = $1 and r.kind = 'property' and r.internal_id = md5($2::uuid::text || '/' || i)::uuid`,
    [context.channelId, context.templateId, plan.properties],
  );
  await sql.query('alter table scale_property add primary key (p)');
  const { rows } = await sql.query<{ n: string }>('select count(*) as n from scale_property');
  if (Number(rows[0]!.n) !== plan.properties)
    throw new Error(`the channel sees ${rows[0]!.n} of the size's ${plan.properties} properties`);
}

/** Events of blocks `from..to` (inclusive); with `again`, those already there are left as they are. */
export async function loadEvents(
  sql: pg.Client,
  plan: ScalePlan,
  context: HistoryContext,
  from: number,
  to: number,
  again = false,
): Promise<void> {
  const place = placeSql(plan, 'pos');
  const id = 'sp.external_id';
  const pushFrom = `(${dayNumber(place.stampMs)} + 1 + ${place.global} % 60)`;
  const rollDay = `(${dayNumber(place.blockStartMs)} + 1)`;
  const data = `case when ${place.isCatalogue} then ${catalogueDataSql('property', id, 'pos')}
    when ${place.isRegular} then ${availabilityDataSql(id, dateOfDay(pushFrom), dateOfDay(`${pushFrom} + 1 + ${place.global} % 7`))}
    else ${availabilityDataSql(id, dateOfDay(`${rollDay} + 365`), dateOfDay(`${rollDay} + 366`))} end`;
  const length = blockLength(plan);
  await sql.query(
    `insert into event (channel_id, position, id, type, occurred_at, data, traceparent)
     select $1::uuid, pos, ${externalIdSql('event', place.idMs, `$1::uuid::text || '/' || pos`)},
            case when ${place.isCatalogue} then 'property.updated' else 'availability.updated' end,
            ${stampSql(place.stampMs)}, (${data})::json, null
       from generate_series($2::bigint, $3::bigint) as pos join scale_property sp on sp.p = ${place.property}
      order by pos ${again ? 'on conflict do nothing' : ''}`,
    [context.channelId, from * length + 1, (to + 1) * length],
  );
}

/**
 * Deliveries of blocks `from..to` (the endpoint's first is block 1) and their attempts, from the
 * events already loaded; with `again`, those already there are left as they are.
 */
export async function loadDeliveries(
  sql: pg.Client,
  plan: ScalePlan,
  context: HistoryContext,
  from: number,
  to: number,
  again = false,
): Promise<void> {
  const place = placeSql(plan, 'e.position');
  const random = `substr(md5($1::uuid::text || '/' || ${place.block} || '/' || ${place.burst}), 1, 14) || lpad(to_hex(${place.inBurst}), 2, '0')`;
  const id = `('dlv_' || ${ulidSql(place.dispatchMs, random)})`;
  const failing = failedFirstSql('e.position');
  const first = `(${place.dispatchMs} + ${ATTEMPT_LAG_MS})`;
  const duration = (n: number) => `(${4 + n} + e.position % 37)`;
  const jitter = `(${RETRY_MS * 0.8} + (e.position * 7919) % ${RETRY_MS * 0.4})`;
  const second = `(${first} + ${duration(0)} + ${jitter})`;
  const last = `(case when ${failing} then ${second} else ${first} end)`;
  const length = blockLength(plan);
  const range = [context.channelId, Math.max(1, from) * length + 1, (to + 1) * length];
  const events = `from event e where e.channel_id = $1 and e.position between $2 and $3 and e.type = 'property.updated'`;
  const conflict = again ? 'on conflict do nothing' : '';
  await sql.query(
    `insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, state, attempts, created_at, last_attempt_at, next_attempt_at, completed_at)
     select ${id}, $4, e.id, e.type,
            ${webhookBodySql({ idExpr: 'e.id', typeExpr: 'e.type', stampExpr: 'e.occurred_at', dataExpr: 'e.data' }, context.channelName)},
            'delivered', case when ${failing} then 2 else 1 end, ${stampSql(place.dispatchMs)}, ${stampSql(last)}, null,
            ${stampSql(`${last} + case when ${failing} then ${duration(1)} else ${duration(0)} end`)}
       ${events} order by e.position ${conflict}`,
    [...range, context.endpointId],
  );
  const { delivered, failed } = context.attempts;
  const either = (column: number) => `case when ${failing} then $${column + 3} else $${column} end`;
  await sql.query(
    `insert into webhook_attempt (delivery_id, number, attempted_at, status_code, duration_ms, error, response_excerpt)
     select ${id}, 1, ${stampSql(first)}, (${either(4)})::int, ${duration(0)}, (${either(5)})::text, (${either(6)})::text ${events}
     union all
     select ${id}, 2, ${stampSql(second)}, $4::int, ${duration(1)}, $5::text, $6::text ${events} and ${failing}
     ${conflict}`,
    [
      ...range,
      delivered.statusCode,
      delivered.error,
      delivered.excerpt,
      failed.statusCode,
      failed.error,
      failed.excerpt,
    ],
  );
}

/**
 * The views brought to the history: each copy's record at its last `property.updated` (version
 * and stamp: every block names every property), and its availability at its last change (the
 * last roll) with a version counting them. The template, written after the history, is left.
 */
export async function settleViews(sql: pg.Client, plan: ScalePlan, context: HistoryContext): Promise<void> {
  const lastBlock = (BLOCKS - 1) * blockLength(plan);
  await sql.query(
    `update channel_resource r set version = last.position, updated_at = last.occurred_at
       from (select distinct on (data->>'id') data->>'id' as id, position, occurred_at from event
              where channel_id = $1 and position > $2 and type = 'property.updated' order by data->>'id', position desc) last
      where r.channel_id = $1 and r.kind = 'property' and r.external_id = last.id and r.internal_id <> $3`,
    [context.channelId, lastBlock, context.templateId],
  );
  await sql.query(
    `update ari_property a set version = 1 + changes.n, updated_at = changes.last
       from (select data->>'id' as id, count(*) as n, max(occurred_at) as last from event
              where channel_id = $1 and position <= $2 and type = 'availability.updated' group by 1) changes
       join channel_resource r on r.channel_id = $1 and r.kind = 'property' and r.external_id = changes.id
      where a.property_id = r.internal_id and a.property_id <> $3`,
    [context.channelId, plan.events, context.templateId],
  );
}

/**
 * The night's roll, appended at the log's end as the roll writes it (one `availability.updated`
 * per property, 50 to a transaction, each a millisecond after the last): before each run, so a
 * reader of only `read:catalog` finds a roll's worth of events it cannot read at the log's end.
 * The nights the roll adds are left out: no case reads them.
 */
export async function appendRoll(sql: pg.Client, plan: ScalePlan, context: HistoryContext, now: Date): Promise<void> {
  await sql.query('begin');
  try {
    const { rows } = await sql.query<{ last_stamp: Date; last_position: string }>(
      'select last_stamp, last_position from channel_log where channel_id = $1 for update',
      [context.channelId],
    );
    const start = Number(rows[0]!.last_position);
    const first = Math.max(rows[0]!.last_stamp.getTime() + 1, now.getTime());
    const day = dayNumber(`${first}::bigint`);
    const stamp = `(${first}::bigint + (pos - 1) / ${ROLL_BATCH})`;
    const data = availabilityDataSql('sp.external_id', dateOfDay(`${day} + 365`), dateOfDay(`${day} + 366`));
    await sql.query(
      `insert into event (channel_id, position, id, type, occurred_at, data, traceparent)
       select $1::uuid, $2::bigint + pos, ${externalIdSql('event', stamp, `$1::uuid::text || '/' || ($2::bigint + pos)`)}, 'availability.updated',
              ${stampSql(stamp)}, (${data})::json, null
         from generate_series(1, $3::int) as pos join scale_property sp on sp.p = pos - 1 order by pos`,
      [context.channelId, start, plan.properties],
    );
    const lastStamp = first + Math.floor((plan.properties - 1) / ROLL_BATCH);
    await sql.query('update channel_log set last_position = $2, last_stamp = $3 where channel_id = $1', [
      context.channelId,
      start + plan.properties,
      new Date(lastStamp),
    ]);
    await sql.query('commit');
  } catch (error) {
    await sql.query('rollback');
    throw error;
  }
}

/** The history's first three days written again where a retention pass took them. */
export async function restoreOldestDays(sql: pg.Client, plan: ScalePlan, context: HistoryContext): Promise<void> {
  await loadEvents(sql, plan, context, 0, 2, true);
  await loadDeliveries(sql, plan, context, 1, 2, true);
}
