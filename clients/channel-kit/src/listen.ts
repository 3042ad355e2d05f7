import type { ChannelClient } from './client.ts';
import type { components } from './generated/schema.ts';
import { isProblem, ProblemError } from './problem.ts';
import { ANSWER_WITHIN_MS } from './receiver-rules.ts';
import { signedHeaders } from './signing.ts';

/**
 * `listen`: the event log brought to a receiver on a developer's machine, signed as a webhook.
 * The service delivers webhooks only to public HTTPS addresses; this reads `GET /events` with the
 * channel's key instead, so no tunnel is needed, and forwards each event to a local address.
 */

export type LogEvent = components['schemas']['Event'];

/** Where `listen` keeps its position in the log between runs. */
export interface CursorStore {
  load(): Promise<string | undefined>;
  save(cursor: string): Promise<void>;
}

/** What `listen` reports, one record per line of its output. */
export type ListenLine =
  | {
      kind: 'start';
      from: 'cursor' | 'saved' | 'oldest' | 'latest';
      cursor: string | null;
      forwardTo: string;
      /** The saved position an explicit `cursor` or `from` set aside: this run saves its own over it. */
      replaced: string | null;
    }
  | { kind: 'skipped'; events: number }
  | { kind: 'forwarded'; event: EventSummary; status: number; ms: number; tries: number }
  | { kind: 'failed'; event: EventSummary; status: number | null; error: string | null; tries: number }
  | { kind: 'receiver_down'; forwardTo: string; error: string }
  | { kind: 'cursor_expired' }
  | { kind: 'api_unreachable'; error: string; retryInSeconds: number };

export interface EventSummary {
  id: string;
  type: string;
  occurred_at: string;
}

export interface ListenOptions {
  client: ChannelClient;
  /** The local receiver: `http://localhost:3000/webhooks`, say. */
  forwardTo: string;
  /** The secret forwarded events are signed with (`whsec_…`); the receiver verifies with it. */
  secret: string;
  /** Start at this `next_cursor` rather than where the store says (the start line names what it replaces). */
  cursor?: string;
  /**
   * Forward the log from its oldest kept event, or only what comes next. Given, it wins over a
   * saved position, which this run replaces (the start line names it); not given, a saved
   * position is resumed, and without one the run starts at the log's end.
   */
  from?: 'oldest' | 'latest';
  cursorStore?: CursorStore;
  /** Forward only events these patterns match: `*`, `property.*`, an exact type (default all). */
  events?: readonly string[];
  /** Seconds between polls once the log's end is reached (default 2). */
  pollSeconds?: number;
  /** Waits between tries of a failed forward, in milliseconds (default 250, 1,000, 3,000). */
  retryDelaysMs?: readonly number[];
  /** A forward not answered within this is a failed try, as at the service (default 10,000). */
  answerWithinMs?: number;
  /** The `fetch` forwards are sent with (default `globalThis.fetch`). */
  forwardFetch?: (input: Request) => Promise<Response>;
  /** Ends the run: the position reached is saved and `listen` resolves. */
  signal?: AbortSignal;
  onLine?: (line: ListenLine) => void;
}

export interface ListenResult {
  forwarded: number;
  failed: number;
  /** Where the next run resumes. */
  cursor: string | null;
}

const PAGE = 100;
const SKIP_PAGE = 500;

/** Whether `type` matches one of the subscription patterns the service takes. */
export function matchesEventPatterns(patterns: readonly string[], type: string): boolean {
  return patterns.some(
    (pattern) =>
      pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))),
  );
}

/**
 * Tails the event log and forwards each event to `forwardTo` until `signal` aborts. A page's
 * position is saved once all its events were forwarded, so an interrupted page is forwarded again
 * on the next run: at least once, as webhooks are. A forward that fails all its tries is reported
 * and passed over. A cursor older than the log's 35 days starts again at the log's end.
 */
export async function listen(options: ListenOptions): Promise<ListenResult> {
  const { client, signal } = options;
  const report = options.onLine ?? (() => undefined);
  const patterns = options.events?.length ? options.events : ['*'];
  const pollMs = (options.pollSeconds ?? 2) * 1000;
  const result: ListenResult = { forwarded: 0, failed: 0, cursor: null };

  // An explicit starting point (a cursor, or `from`) wins over a saved one, and names it; the
  // saved one is resumed only when none is given.
  const saved = await options.cursorStore?.load();
  let cursor = options.cursor;
  let from: Extract<ListenLine, { kind: 'start' }>['from'] = 'cursor';
  let replaced = cursor !== undefined && saved !== cursor ? (saved ?? null) : null;
  if (cursor === undefined) {
    if (options.from !== undefined) {
      from = options.from;
      replaced = saved ?? null;
    } else if (saved !== undefined) {
      cursor = saved;
      from = 'saved';
    } else from = 'latest';
  }
  if (cursor === undefined && from === 'latest') cursor = await logEnd(client, report, signal);
  report({ kind: 'start', from, cursor: cursor ?? null, forwardTo: options.forwardTo, replaced });
  result.cursor = cursor ?? null;

  let unreachable = 0;
  while (!signal?.aborted) {
    let page: components['schemas']['EventPage'];
    try {
      const query = cursor === undefined ? { limit: PAGE } : { limit: PAGE, cursor };
      ({ data: page } = (await client.GET('/events', { params: { query }, signal })) as {
        data: components['schemas']['EventPage'];
      });
      unreachable = 0;
    } catch (error) {
      if (signal?.aborted) break;
      if (isProblem(error, 'event_cursor_expired')) {
        report({ kind: 'cursor_expired' });
        cursor = await logEnd(client, report, signal);
        continue;
      }
      // A wrong key or cursor stops the run; the service restarting or unreachable does not.
      if (error instanceof ProblemError && error.status < 500) throw error;
      const retryInSeconds = Math.min(30, 2 ** unreachable++);
      report({ kind: 'api_unreachable', error: describe(error), retryInSeconds });
      await pause(retryInSeconds * 1000, signal);
      continue;
    }
    let interrupted = false;
    for (const event of page.data) {
      if (!matchesEventPatterns(patterns, event.type)) continue;
      const line = await forward(options, event, report);
      if (line === undefined) {
        interrupted = true;
        break;
      }
      if (line.kind === 'forwarded') result.forwarded++;
      else result.failed++;
      report(line);
    }
    // Stopped mid-page: the position stays before it, and the page is forwarded again next time.
    if (interrupted) break;
    cursor = page.next_cursor;
    result.cursor = cursor;
    await options.cursorStore?.save(cursor);
    if (!page.has_more) await pause(pollMs, signal);
  }
  return result;
}

/** Pages to the log's end without forwarding: where `--from latest` starts. */
async function logEnd(
  client: ChannelClient,
  report: (line: ListenLine) => void,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  let skipped = 0;
  let cursor: string | undefined;
  for await (const page of client.pages('/events', { params: { query: { limit: SKIP_PAGE } }, signal })) {
    skipped += page.data.length;
    cursor = page.next_cursor;
  }
  report({ kind: 'skipped', events: skipped });
  return cursor;
}

/**
 * One event to the receiver: tried again quickly on a failure, and passed over after the last
 * try. A receiver not listening at all (connection refused) is waited for instead, without
 * counting tries, so that starting `listen` before the receiver loses nothing. Undefined when
 * stopped meanwhile.
 */
async function forward(
  options: ListenOptions,
  event: LogEvent,
  report: (line: ListenLine) => void,
): Promise<Extract<ListenLine, { kind: 'forwarded' | 'failed' }> | undefined> {
  const send = options.forwardFetch ?? ((request: Request) => globalThis.fetch(request));
  const delays = options.retryDelaysMs ?? [250, 1_000, 3_000];
  const summary = { id: event.id, type: event.type, occurred_at: event.occurred_at };
  const body = JSON.stringify(event);
  let down = false;
  for (let tries = 1; ; tries++) {
    if (options.signal?.aborted) return undefined;
    let status: number | null = null;
    let error: string | null = null;
    // Signed afresh on every try, as the service does: the timestamp is the sending time.
    const headers = signedHeaders([options.secret], event.id, new Date(), body);
    const started = performance.now();
    try {
      const answer = await send(
        new Request(options.forwardTo, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
          // A redirect is not a delivery, as at the service.
          redirect: 'manual',
          signal: AbortSignal.timeout(options.answerWithinMs ?? ANSWER_WITHIN_MS),
        }),
      );
      await answer.arrayBuffer();
      status = answer.status;
      if (status >= 200 && status < 300) {
        return { kind: 'forwarded', event: summary, status, ms: Math.round(performance.now() - started), tries };
      }
    } catch (failure) {
      error = describe(failure);
      if (error === 'ECONNREFUSED') {
        if (!down) report({ kind: 'receiver_down', forwardTo: options.forwardTo, error });
        down = true;
        tries--;
        await pause(1_000, options.signal);
        continue;
      }
    }
    if (tries > delays.length || options.signal?.aborted) {
      return { kind: 'failed', event: summary, status, error, tries };
    }
    await pause(delays[tries - 1]!, options.signal);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'no answer in time';
  // fetch's "fetch failed" says nothing; its cause names the socket error.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
