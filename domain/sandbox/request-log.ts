/**
 * A sandbox key's own request log: what is kept, for how long, and how a channel filters it.
 * Pure rules; the table is db/sandbox-requests.ts, the recording api/middleware/sandbox-request-log.ts.
 */

/** A sandbox request is kept this long, then pruned by the housekeeping pass. */
export const SANDBOX_REQUEST_RETENTION_HOURS = 24;
export const SANDBOX_REQUEST_RETENTION_MS = SANDBOX_REQUEST_RETENTION_HOURS * 3600 * 1000;
/** The longest path (with its query) kept; a longer one is cut and ends in `…`. */
export const MAX_LOGGED_PATH = 1024;
/** What stands for a query value the operation does not declare (it could be anything, a secret too). */
export const WITHHELD_VALUE = '~';

/** `4xx`, `5xx` (a class) or `404` (one status). */
export const STATUS_FILTER_SOURCE = '^[1-5](?:xx|[0-9]{2})$';

/** The statuses a filter admits, both ends included. */
export function statusRange(filter: string): { from: number; to: number } {
  if (filter.endsWith('xx')) {
    const hundred = Number(filter[0]) * 100;
    return { from: hundred, to: hundred + 99 };
  }
  return { from: Number(filter), to: Number(filter) };
}

/**
 * The path as logged: the query's parameters in their order, each value kept only when the
 * operation declares that parameter (`declared`), any other withheld, since a channel may have put
 * anything there by mistake; cut to MAX_LOGGED_PATH.
 */
export function loggedPath(originalUrl: string, declared: ReadonlySet<string>): string {
  const mark = originalUrl.indexOf('?');
  const path = mark === -1 ? originalUrl : originalUrl.slice(0, mark);
  let logged = path;
  if (mark !== -1) {
    const query = new URLSearchParams(originalUrl.slice(mark + 1));
    const parts: string[] = [];
    for (const [name, value] of query)
      parts.push(`${encodeURIComponent(name)}=${declared.has(name) ? encodeURIComponent(value) : WITHHELD_VALUE}`);
    if (parts.length > 0) logged = `${path}?${parts.join('&')}`;
  }
  return logged.length > MAX_LOGGED_PATH ? `${logged.slice(0, MAX_LOGGED_PATH - 1)}…` : logged;
}

/** A page starts no earlier than the log keeps: `since` or the retention's start, whichever is later. */
export function readFrom(now: Date, since: Date | undefined): Date {
  const kept = now.getTime() - SANDBOX_REQUEST_RETENTION_MS;
  return new Date(Math.max(kept, since?.getTime() ?? kept));
}
