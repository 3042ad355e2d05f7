import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The event log, the deliveries and their attempts are kept in daily range partitions (UTC days)
 * so that retention drops a day at once instead of deleting row by row: the tables never bloat
 * and the cost of a pass does not follow the data. One scheduled job (the housekeeping pass)
 * creates each table's partitions ahead and drops those wholly past the table's window; there is
 * no default partition, so a row with no partition for its day is refused rather than hidden.
 *
 * Unique constraints cannot live on a partitioned table unless they hold its partition key, so
 * each partition carries its own (`local`); the service's writes guarantee what they guarded
 * across days (positions under the channel's log lock, ids as ULIDs, a delivery per endpoint and
 * event under the dispatcher's lock).
 */
export interface PartitionedTable {
  table: string;
  /** The `timestamptz` column the table is partitioned on. */
  column: string;
  /** A row is kept at least this many days after its `column`; its day goes once wholly older. */
  keepDays: number;
  /** Each partition's own constraints (the parent cannot hold unique ones without the key). */
  local: string;
  /** Indexes and checks of the parent, each the same as one the plain table had, so attaching adopts it. */
  parent: readonly string[];
  /** Foreign keys of the parent, added once the history is attached (it adopts the plain table's own). */
  references: readonly string[];
  /** Run before the conversion, outside any transaction (an index built concurrently). */
  prepare: readonly string[];
  /** Constraints other tables hold on this one that a partitioned table cannot keep. */
  dropFirst: readonly string[];
}

export const PARTITIONED_TABLES: readonly PartitionedTable[] = [
  {
    table: 'event',
    column: 'occurred_at',
    // The contract keeps events 35 days; they go a day later (see services/catalogue-reads.ts).
    keepDays: 36,
    local: 'primary key (channel_id, position), unique (id)',
    parent: [
      'create index event_channel_time on event (channel_id, occurred_at, position)',
      `create index event_ari on event (channel_id, position) where type = 'availability.updated'`,
      `create index event_catalog on event (channel_id, position) where type <> 'availability.updated'`,
    ],
    references: [
      'alter table event add constraint event_channel_id_foreign foreign key (channel_id) references channel (id)',
    ],
    prepare: [],
    dropFirst: [],
  },
  {
    table: 'webhook_delivery',
    column: 'created_at',
    keepDays: 35,
    local: 'primary key (id), unique (endpoint_id, event_id)',
    parent: [
      'create index webhook_delivery_page on webhook_delivery (endpoint_id, created_at, id)',
      `create index webhook_delivery_due on webhook_delivery (endpoint_id, (coalesce(next_attempt_at, last_attempt_at, created_at))) where state = 'pending'`,
      `alter table webhook_delivery add constraint webhook_delivery_state_check check (state in ('pending', 'delivered', 'failed', 'cancelled'))`,
    ],
    references: [
      'alter table webhook_delivery add constraint webhook_delivery_endpoint_id_foreign foreign key (endpoint_id) references webhook_endpoint (id)',
    ],
    prepare: [],
    // An attempt's delivery is found by id; a partitioned table's id is unique per day only.
    dropFirst: ['alter table webhook_attempt drop constraint if exists webhook_attempt_delivery_id_foreign'],
  },
  {
    table: 'webhook_attempt',
    // An attempt is made after its delivery was created, so its day drops with or after its delivery's.
    column: 'attempted_at',
    keepDays: 35,
    local: 'primary key (delivery_id, number)',
    parent: [],
    references: [],
    // The history is swept by attempt time until it goes whole.
    prepare: [
      'create index concurrently if not exists webhook_attempt_attempted_at_index on webhook_attempt (attempted_at)',
    ],
    dropFirst: ['alter table webhook_attempt drop constraint if exists webhook_attempt_delivery_id_foreign'],
  },
];

const DAY_MS = 24 * 3600 * 1000;
/** Days of partitions kept ready ahead of today. */
export const DAYS_AHEAD = 7;

/** The start of `at`'s UTC day. */
export function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

export function partitionName(table: string, day: Date): string {
  return `${table}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

export function historyName(table: string): string {
  return `${table}_history`;
}

/** A partition of a table and the instant its range ends (null: unbounded, never the case here). */
export interface Partition {
  name: string;
  from: Date | null;
  to: Date | null;
}

/** Whether the table is partitioned yet. */
export async function isPartitioned(em: EntityManager, table: string): Promise<boolean> {
  const [row] = await em.execute<{ kind: string }[]>(`select relkind as kind from pg_class where oid = ?::regclass`, [
    table,
  ]);
  return row?.kind === 'p';
}

/** The table's partitions, oldest first. */
export async function partitionsOf(em: EntityManager, table: string): Promise<Partition[]> {
  const rows = await em.execute<{ name: string; bound: string }[]>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ?::regclass`,
    [table],
  );
  const instant = (text: string | undefined) => (text === undefined ? null : new Date(text));
  return rows
    .map((row) => {
      const [, from, to] = /FROM \((?:'([^']+)'|MINVALUE)\) TO \((?:'([^']+)'|MAXVALUE)\)/.exec(row.bound) ?? [];
      return { name: row.name, from: instant(from), to: instant(to) };
    })
    .sort((a, b) => (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity));
}

/**
 * Per partitioned table, the days from `now` to the end of its last partition: how long writes go
 * on if the job stops creating them (a metric; an alert fires below three). Tables not yet
 * partitioned are left out.
 */
export async function daysAhead(em: EntityManager, now: Date): Promise<{ table: string; days: number }[]> {
  const rows = await em.execute<{ table: string; bound: string | null }[]>(
    `select p.relname as table,
            (select pg_get_expr(c.relpartbound, c.oid) from pg_inherits i join pg_class c on c.oid = i.inhrelid
              where i.inhparent = p.oid order by c.relname desc limit 1) as bound
       from pg_class p
      where p.relkind = 'p' and p.relnamespace = 'public'::regnamespace and p.relname = any(?::text[])`,
    [`{${PARTITIONED_TABLES.map((spec) => spec.table).join(',')}}`],
  );
  return rows.map((row) => {
    const to = row.bound === null ? undefined : /TO \('([^']+)'\)/.exec(row.bound)?.[1];
    return {
      table: row.table,
      days: to === undefined ? 0 : Math.max(0, (new Date(to).getTime() - now.getTime()) / 86_400_000),
    };
  });
}

/** The instant before which a row of `spec` may go, at `now`. */
export function keptFrom(spec: PartitionedTable, now: Date): Date {
  return new Date(now.getTime() - spec.keepDays * DAY_MS);
}
