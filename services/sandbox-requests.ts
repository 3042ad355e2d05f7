import type { Channel } from '../db/channels.ts';
import { sandboxRequestsPage, type LoggedRequest } from '../db/sandbox-requests.ts';
import { decodeCursor, encodeCursor, hashQuery } from '../domain/catalogue/cursor.ts';
import { ProblemError } from '../domain/problems.ts';
import { readFrom, statusRange } from '../domain/sandbox/request-log.ts';
import type { ServiceDeps } from './deps.ts';

/** `GET /sandbox/requests`: the channel's own requests of the last day, newest first. */

export interface RequestLogQuery {
  limit: number;
  cursor?: string | undefined;
  status?: string | undefined;
  code?: string | undefined;
  since?: string | undefined;
}

export async function listSandboxRequests(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'secrets'>,
  channel: Channel,
  query: RequestLogQuery,
): Promise<{ requests: LoggedRequest[]; nextCursor: string | null }> {
  const hash = hashQuery({
    kind: 'sandbox-requests',
    channel: channel.id,
    status: query.status,
    code: query.code,
    since: query.since,
  });
  let before: { receivedAt: Date; id: number } | null = null;
  if (query.cursor !== undefined) {
    const decoded = await decodeCursor(query.cursor, hash, deps.secrets.ring);
    if (!decoded || typeof decoded.t !== 'number' || typeof decoded.i !== 'number')
      throw new ProblemError('invalid_cursor');
    before = { receivedAt: new Date(decoded.t), id: decoded.i };
  }
  const rows = await sandboxRequestsPage(deps.orm.em.fork(), channel.id, {
    from: readFrom(deps.clock.now(), query.since === undefined ? undefined : new Date(query.since)),
    before,
    status: query.status === undefined ? null : statusRange(query.status),
    code: query.code ?? null,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last
      ? await encodeCursor({ t: last.receivedAt.getTime(), i: last.id }, hash, deps.secrets.ring)
      : null;
  return { requests: page, nextCursor };
}
