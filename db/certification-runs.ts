import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  CertificationHandOff,
  CertificationRun,
  CertificationState,
  ReportRow,
} from '../domain/certification/runs.ts';

// Sandbox certification runs and their reports (table `certification_run`), and the one read of
// the delivery records a run observes. The hand-off kept with a waiting run holds the owner-connect
// token itself: short-lived, addressed to the run's channel (`aud`), shown only to that channel,
// and cleared once the run stops waiting (db/entities/certification-run.ts).

interface RunRow {
  id: string;
  channel_id: string;
  webhook_id: string;
  state: CertificationState;
  step: string | null;
  hand_off: { owner_id: string; token: string; redirect_url: string; window_ends_at: string } | null;
  rows: ReportRow[];
  started_at: Date | string;
  finished_at: Date | string | null;
}

function runOf(row: RunRow): CertificationRun {
  const handOff = row.hand_off;
  return {
    id: row.id,
    channelId: row.channel_id,
    webhookId: row.webhook_id,
    state: row.state,
    step: row.step,
    handOff: handOff
      ? {
          ownerId: handOff.owner_id,
          token: handOff.token,
          redirectUrl: handOff.redirect_url,
          windowEndsAt: new Date(handOff.window_ends_at),
        }
      : null,
    rows: row.rows,
    startedAt: new Date(row.started_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  };
}

const handOffJson = (handOff: CertificationHandOff | null) =>
  handOff === null
    ? null
    : JSON.stringify({
        owner_id: handOff.ownerId,
        token: handOff.token,
        redirect_url: handOff.redirectUrl,
        window_ends_at: handOff.windowEndsAt.toISOString(),
      });

/**
 * Records a new run, `running`, its rows pending. False when the channel has a run running
 * already: the partial unique index `certification_run_running` refuses a second one.
 */
export async function insertCertificationRun(
  em: EntityManager,
  run: Pick<CertificationRun, 'id' | 'channelId' | 'webhookId' | 'step' | 'rows' | 'startedAt'>,
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `insert into certification_run (id, channel_id, webhook_id, state, step, hand_off, rows, started_at, finished_at)
     values (?, ?, ?, 'running', ?, null, ?::jsonb, ?, null)
     on conflict do nothing returning id`,
    [run.id, run.channelId, run.webhookId, run.step, JSON.stringify(run.rows), run.startedAt],
  );
  return rows.length === 1;
}

/** The id of the channel's run still running, or null. */
export async function runningCertificationOf(em: EntityManager, channelId: string): Promise<string | null> {
  const [row] = await em.execute<{ id: string }[]>(
    `select id from certification_run where channel_id = ? and state = 'running'`,
    [channelId],
  );
  return row?.id ?? null;
}

export async function findCertificationRun(em: EntityManager, id: string): Promise<CertificationRun | null> {
  const [row] = await em.execute<RunRow[]>('select * from certification_run where id = ?', [id]);
  return row ? runOf(row) : null;
}

/** Runs newest first: of one channel, or of every channel (the operator's list). */
export async function listCertificationRuns(
  em: EntityManager,
  filter: { channelId: string | null; limit: number },
): Promise<CertificationRun[]> {
  const rows =
    filter.channelId === null
      ? await em.execute<RunRow[]>('select * from certification_run order by started_at desc, id desc limit ?', [
          filter.limit,
        ])
      : await em.execute<RunRow[]>(
          'select * from certification_run where channel_id = ? order by started_at desc, id desc limit ?',
          [filter.channelId, filter.limit],
        );
  return rows.map(runOf);
}

/** The step a running run is at, and its hand-off (null: none, or no longer). A run that ended keeps its report. */
export async function setCertificationStep(
  em: EntityManager,
  id: string,
  step: string,
  handOff: CertificationHandOff | null,
): Promise<void> {
  await em.execute(`update certification_run set step = ?, hand_off = ?::jsonb where id = ? and state = 'running'`, [
    step,
    handOffJson(handOff),
    id,
  ]);
}

/** Ends a running run with its rows; a run already ended is left as it ended. */
export async function finishCertificationRun(
  em: EntityManager,
  id: string,
  end: { state: Exclude<CertificationState, 'running'>; rows: ReportRow[]; step: string | null; finishedAt: Date },
): Promise<void> {
  await em.execute(
    `update certification_run set state = ?, rows = ?::jsonb, step = ?, hand_off = null, finished_at = ?
      where id = ? and state = 'running'`,
    [end.state, JSON.stringify(end.rows), end.step, end.finishedAt, id],
  );
}

/** The first attempt of an event's delivery to an endpoint, as its records hold it. */
export interface FirstAttempt {
  status: number | null;
  durationMs: number;
  error: string | null;
  attemptedAt: Date;
  /** The body delivered (the event as the endpoint was sent it). */
  payload: string;
}

/**
 * The first attempt of the delivery of `eventId` to the endpoint, made since `since` (the
 * deliveries' and attempts' day partitions from there); null while it has not been recorded.
 */
export async function firstDeliveryAttempt(
  em: EntityManager,
  endpointId: string,
  eventId: string,
  since: Date,
): Promise<FirstAttempt | null> {
  const [row] = await em.execute<
    {
      status_code: number | null;
      duration_ms: number;
      error: string | null;
      attempted_at: Date | string;
      payload: string;
    }[]
  >(
    `select a.status_code, a.duration_ms, a.error, a.attempted_at, d.payload
       from webhook_delivery d
       join webhook_attempt a on a.delivery_id = d.id and a.number = 1 and a.attempted_at >= ?
      where d.endpoint_id = ? and d.event_id = ? and d.created_at >= ?
      order by d.created_at limit 1`,
    [since, endpointId, eventId, since],
  );
  if (!row) return null;
  return {
    status: row.status_code === null ? null : Number(row.status_code),
    durationMs: Number(row.duration_ms),
    error: row.error,
    attemptedAt: new Date(row.attempted_at),
    payload: row.payload,
  };
}
