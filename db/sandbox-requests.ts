import type { EntityManager } from '@mikro-orm/postgresql';
import { SANDBOX_REQUEST_RETENTION_MS } from '../domain/sandbox/request-log.ts';
import { queryRows } from './sql.ts';

/** One request of a sandbox key, as recorded after its answer finished. */
export interface SandboxRequestRecord {
  channelId: string;
  keyId: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  units: number;
  durationMs: number;
  receivedAt: Date;
}

export interface LoggedRequest extends SandboxRequestRecord {
  id: number;
}

interface LoggedRequestRow {
  id: string;
  channel_id: string;
  key_id: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  units: number;
  duration_ms: number;
  received_at: Date | string;
}

/** Rows deleted per statement by the pruning, and statements per pass at most. */
const PRUNE_BATCH = 5_000;
const PRUNE_BATCHES = 20;

/**
 * One statement per authenticated sandbox request, prepared once per connection on the ORM's own
 * pool (db/sql.ts): it runs after every answer, so it goes without the ORM's query formatting.
 */
export async function insertSandboxRequest(em: EntityManager, record: SandboxRequestRecord): Promise<void> {
  await queryRows(
    em,
    `insert into sandbox_request (channel_id, key_id, request_id, method, path, status, code, units, duration_ms, received_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      record.channelId,
      record.keyId,
      record.requestId,
      record.method,
      record.path,
      record.status,
      record.code,
      record.units,
      record.durationMs,
      record.receivedAt,
    ],
  );
}

export interface SandboxRequestFilter {
  /** Only requests received at or after this instant. */
  from: Date;
  /** Newest first: only requests before this position. */
  before: { receivedAt: Date; id: number } | null;
  status: { from: number; to: number } | null;
  code: string | null;
  limit: number;
}

/**
 * A page of the channel's requests, newest first by (received_at, id): one statement on
 * `sandbox_request_page`, bounded by the channel and the day it keeps (or `since`), which also
 * bounds the rows a status or code filter walks past.
 */
export async function sandboxRequestsPage(
  em: EntityManager,
  channelId: string,
  filter: SandboxRequestFilter,
): Promise<LoggedRequest[]> {
  const rows = await em.execute<LoggedRequestRow[]>(
    `select id, channel_id, key_id, request_id, method, path, status, code, units, duration_ms, received_at
       from sandbox_request
      where channel_id = ? and received_at >= ?
        ${filter.before ? 'and (received_at, id) < (?, ?)' : ''}
        ${filter.status ? 'and status between ? and ?' : ''}
        ${filter.code ? 'and code = ?' : ''}
      order by received_at desc, id desc
      limit ?`,
    [
      channelId,
      filter.from,
      ...(filter.before ? [filter.before.receivedAt, filter.before.id] : []),
      ...(filter.status ? [filter.status.from, filter.status.to] : []),
      ...(filter.code ? [filter.code] : []),
      filter.limit,
    ],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    channelId: row.channel_id,
    keyId: row.key_id,
    requestId: row.request_id,
    method: row.method,
    path: row.path,
    status: Number(row.status),
    code: row.code,
    units: Number(row.units),
    durationMs: Number(row.duration_ms),
    receivedAt: new Date(row.received_at),
  }));
}

/**
 * Deletes requests older than the log keeps, oldest first, in batches: at most PRUNE_BATCHES
 * statements a pass, so a backlog is worked off over several passes without one long lock.
 * Answers how many it deleted.
 */
export async function pruneSandboxRequests(em: EntityManager, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - SANDBOX_REQUEST_RETENTION_MS);
  let deleted = 0;
  for (let batch = 0; batch < PRUNE_BATCHES; batch += 1) {
    const rows = await em.execute<{ id: string }[]>(
      `delete from sandbox_request where id in (
         select id from sandbox_request where received_at < ? order by received_at limit ?)
       returning id`,
      [cutoff, PRUNE_BATCH],
    );
    deleted += rows.length;
    if (rows.length < PRUNE_BATCH) break;
  }
  return deleted;
}
