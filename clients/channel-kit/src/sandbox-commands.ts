import type { ChannelClient } from './client.ts';
import type { components } from './generated/schema.ts';
import type { ProblemError } from './problem.ts';

/**
 * The sandbox's commands: `trigger` makes an event happen (`POST /sandbox/triggers`) and prints
 * what it produced; `logs` prints the channel's own requests (`GET /sandbox/requests`), one line
 * each, so a refused request explains itself: method, path, status, code and request id.
 */

export type SandboxTrigger = components['schemas']['SandboxTrigger'];
export type SandboxRequest = components['schemas']['SandboxRequest'];

/** One line per event the trigger produced (or per ping), then where `GET /events` reads them from. */
export function triggerLines(outcome: SandboxTrigger): string[] {
  const events = outcome.events.map(
    (event) =>
      `${event.type.padEnd(22)} ${event.event_id}  ${event.object} ${event.id}${event.version === null ? '' : ` v${event.version}`}`,
  );
  const pings = outcome.pings.map(
    (ping) =>
      `webhook.ping           ${ping.event_id}  -> ${ping.webhook_id} ${ping.delivered ? 'delivered' : `FAILED ${ping.error ?? ping.status_code ?? ''}`} (${ping.status_code ?? 'no answer'} in ${ping.duration_ms} ms)`,
  );
  const tail =
    outcome.cursor === null
      ? outcome.pings.length === 0 && outcome.type === 'webhook.ping'
        ? ['No active endpoint to ping.']
        : []
      : [`Read them with GET /events?cursor=${outcome.cursor}`];
  return [...events, ...pings, ...tail];
}

/** A refusal as the commands print it: status, code, why, each failed rule, the request id to quote. */
export function refusalLines(error: ProblemError): string[] {
  return [
    error.message,
    ...error.errors.map((rule) => {
      const where = 'pointer' in rule ? rule.pointer : 'parameter' in rule ? rule.parameter : rule.header;
      return `  ${where} ${rule.detail}`;
    }),
    ...(error.required_scopes ? [`  needs ${error.required_scopes.join(', ')}`] : []),
    ...(error.request_id ? [`  request ${error.request_id}`] : []),
  ];
}

export async function trigger(client: ChannelClient, type: string): Promise<SandboxTrigger> {
  const { data } = await client.POST('/sandbox/triggers', { body: { type } as { type: 'property.updated' } });
  return data!;
}

/** `received_at method path status code request-id`, the columns a refusal is explained by. */
export function requestLine(request: SandboxRequest): string {
  return [
    request.received_at,
    request.method.padEnd(6),
    request.path,
    String(request.status),
    request.code ?? '-',
    request.request_id,
    `${request.units}u ${request.duration_ms}ms`,
  ].join('  ');
}

export interface LogsOptions {
  status?: string;
  code?: string;
  /** Keep polling and print requests as they are recorded, until `signal` aborts. */
  follow?: boolean;
  pollMs?: number;
  signal?: AbortSignal;
  onRequest: (request: SandboxRequest) => void;
}

/** Whether a request is one of this command's own reads of the log (left out while following). */
const ownRead = (request: SandboxRequest) =>
  request.method === 'GET' && /\/sandbox\/requests$/.test(request.path.split('?')[0]!);

/**
 * How far before the newest request it has printed each `--follow` poll reads again. A request is
 * recorded once its answer is finished, under the instant it was received: a slow one (a ping
 * waiting on an endpoint) lands after quicker, later ones were printed, and a poll from the newest
 * instant alone would never list it. Reading a minute back, ids already printed left out, prints
 * it when it lands; only a request answered more than a minute after it came could be missed.
 */
export const FOLLOW_OVERLAP_MS = 60_000;

/** An instant as `since` takes it, whole seconds (earlier, never later, than `ms`). */
const wholeSecond = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The log newest first: the latest page without `since`; from `since`, every page. */
async function readLog(client: ChannelClient, options: LogsOptions, since: string | undefined) {
  const requests: SandboxRequest[] = [];
  let cursor: string | undefined;
  do {
    const { data } = await client.GET('/sandbox/requests', {
      params: {
        query: {
          limit: 100,
          ...(options.status ? { status: options.status } : {}),
          ...(options.code ? { code: options.code } : {}),
          ...(since ? { since } : {}),
          ...(cursor ? { cursor } : {}),
        },
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    requests.push(...data!.data);
    cursor = since === undefined ? undefined : (data!.next_cursor ?? undefined);
  } while (cursor !== undefined);
  return requests;
}

/**
 * The log's latest page (up to 100), printed oldest first; with `follow`, then every `pollMs` the
 * requests recorded since, each once, in the order their records land, leaving out the command's
 * own polls. Resolves with how many it printed, also when `signal` aborts a read.
 */
export async function logs(client: ChannelClient, options: LogsOptions): Promise<number> {
  /** Each request printed (or left out) by its id, with when it was received. */
  const seen = new Map<string, number>();
  let newest: number | undefined;
  let printed = 0;
  try {
    for (;;) {
      const since = newest === undefined ? undefined : wholeSecond(newest - FOLLOW_OVERLAP_MS);
      const fresh = (await readLog(client, options, since)).filter((r) => !seen.has(r.request_id)).reverse();
      for (const request of fresh) {
        const receivedAt = Date.parse(request.received_at);
        seen.set(request.request_id, receivedAt);
        newest = Math.max(newest ?? receivedAt, receivedAt);
        if (options.follow && ownRead(request)) continue;
        options.onRequest(request);
        printed += 1;
      }
      if (!options.follow || options.signal?.aborted) return printed;
      // A request received before the next poll's `since` is never listed again: its id can go.
      for (const [id, receivedAt] of seen) if (receivedAt < newest! - FOLLOW_OVERLAP_MS - 1000) seen.delete(id);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs ?? 2000);
        options.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (options.signal?.aborted) return printed;
    }
  } catch (error) {
    // Ctrl-C while a read is under way ends the command as it does between reads.
    if (options.signal?.aborted) return printed;
    throw error;
  }
}
