import type { EntityManager } from '@mikro-orm/postgresql';

// The progress row of each projection revision's re-projection of the catalogue
// (services/catalogue-reprojection.ts), and the walk over the properties by id.

export interface ReprojectionState {
  revision: string;
  /** The last property re-projected (by id); null: none yet. */
  after: string | null;
  visited: number;
  /** Channel records whose body changed, each with a new version and its event. */
  written: number;
  startedAt: Date;
  finishedAt: Date | null;
}

interface Row {
  revision: string;
  after: string | null;
  visited: number;
  written: number;
  started_at: Date;
  finished_at: Date | null;
}

const COLUMNS = 'revision, after, visited, written, started_at, finished_at';

function state(row: Row): ReprojectionState {
  return {
    revision: row.revision,
    after: row.after,
    visited: row.visited,
    written: row.written,
    startedAt: new Date(row.started_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  };
}

/** The revision's re-projection, or null when none began. */
export async function reprojectionState(em: EntityManager, revision: string): Promise<ReprojectionState | null> {
  const [row] = await em.execute<Row[]>(`select ${COLUMNS} from catalogue_reprojection where revision = ?`, [revision]);
  return row ? state(row) : null;
}

/**
 * The revision's re-projection begins, or goes on where it stopped: a row that exists is kept
 * as it is, unless `again` asks for a new pass from the first property.
 */
export async function beginReprojection(
  em: EntityManager,
  revision: string,
  at: Date,
  again = false,
): Promise<ReprojectionState> {
  const [row] = await em.execute<Row[]>(
    `insert into catalogue_reprojection (revision, after, visited, written, started_at, finished_at)
     values (?, null, 0, 0, ?, null)
     on conflict (revision) do update set
       after = case when ? then null else catalogue_reprojection.after end,
       visited = case when ? then 0 else catalogue_reprojection.visited end,
       written = case when ? then 0 else catalogue_reprojection.written end,
       started_at = case when ? then excluded.started_at else catalogue_reprojection.started_at end,
       finished_at = case when ? then null else catalogue_reprojection.finished_at end
     returning ${COLUMNS}`,
    [revision, at, again, again, again, again, again],
  );
  return state(row!);
}

/**
 * The revision's row, locked until the transaction ends: a batch reads its cursor under the lock,
 * so two runs of one batch (a lost worker's and its retry) never both count it.
 */
export async function lockReprojection(tx: EntityManager, revision: string): Promise<ReprojectionState | null> {
  const [row] = await tx.execute<Row[]>(`select ${COLUMNS} from catalogue_reprojection where revision = ? for update`, [
    revision,
  ]);
  return row ? state(row) : null;
}

/** The next `limit` properties after `after`, by primary key. */
export async function propertyIdsAfter(tx: EntityManager, after: string | null, limit: number): Promise<string[]> {
  const rows = await tx.execute<{ id: string }[]>(
    after === null
      ? 'select id from property order by id limit ?'
      : 'select id from property where id > ? order by id limit ?',
    after === null ? [limit] : [after, limit],
  );
  return rows.map((row) => row.id);
}

/** After a batch, in its transaction: the new cursor and counts, and when the pass is over, its end. */
export async function recordReprojection(
  tx: EntityManager,
  progress: Pick<ReprojectionState, 'revision' | 'after' | 'visited' | 'written' | 'finishedAt'>,
): Promise<void> {
  await tx.execute(
    'update catalogue_reprojection set after = ?, visited = ?, written = ?, finished_at = ? where revision = ?',
    [progress.after, progress.visited, progress.written, progress.finishedAt, progress.revision],
  );
}

/**
 * The first worker start that finds no re-projection at all records its own revision as finished:
 * the records were written by the code of before, taken to project as it does. False when a row
 * already exists.
 */
export async function recordBaseline(em: EntityManager, revision: string, at: Date): Promise<boolean> {
  const rows = await em.execute<{ revision: string }[]>(
    `insert into catalogue_reprojection (revision, after, visited, written, started_at, finished_at)
     select ?, null, 0, 0, ?, ? where not exists (select 1 from catalogue_reprojection)
     on conflict do nothing returning revision`,
    [revision, at, at],
  );
  return rows.length > 0;
}

/** Properties after the cursor: what the pass has left (an index-only count of the rest of the key). */
export async function propertiesLeft(em: EntityManager, after: string | null): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    after === null ? 'select count(*) as n from property' : 'select count(*) as n from property where id > ?',
    after === null ? [] : [after],
  );
  return Number(row!.n);
}
