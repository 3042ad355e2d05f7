/**
 * The cases `bench:scale` times at each size (each a request a size's service is sent, interleaved
 * with the other sizes' by bench/scale-http.ts), through the service over HTTPS as a channel or
 * the platform calls it: the channel's reads of its catalogue, availability, event log and
 * deliveries, and the platform's writes. Deep pages start from cursors the service made, or (for
 * the event log and deliveries, whose middle is millions of rows in) from ones minted here with the
 * service's own cursor code and the server secret the bench runs it with (bench/scale-cursors.ts).
 */
import type pg from 'pg';
import { addDays, localDate } from '../domain/time.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { yearOfPrices } from './availability-setup.ts';
import { deliveryCursor, eventCursor } from './scale-cursors.ts';
import { expectStatus, type ScaleClient, type Send } from './scale-http.ts';
import { BLOCKS, DAY_MS, middleOfHistory, ROLL_AT_MS } from './scale-plan.ts';
import type { SizeDatabase } from './scale-build.ts';
import { TEMPLATE_REF, templateBody } from './scale-template.ts';

const API = '/api/v1/distribution';
const EVENTS_LIMIT = 500;

export interface CaseKeys {
  /** `read:catalog`, `read:ari` and `manage:webhooks`: the channel's own reader. */
  full: string;
  /** Only `read:catalog`. */
  catalog: string;
}

export interface CaseContext {
  client: ScaleClient;
  size: SizeDatabase;
  sql: pg.Client;
  deps: Pick<ServiceDeps, 'secrets'>;
  keys: CaseKeys;
}

type Page = { data: Record<string, unknown>[]; next_cursor: string | null; has_more?: boolean };

/** The next_cursor after `half` of the list, read with pages of 500 the way a full sync reads it. */
async function middleOfList(context: CaseContext, total: number): Promise<string> {
  let cursor: string | null = null;
  for (let read = 0; read < total / 2;) {
    const route = `${API}/properties?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = expectStatus(await context.client.request('GET', route, context.keys.full), 200, 'a list page')
      .json as Page;
    read += page.data.length;
    cursor = page.next_cursor;
    if (!cursor) throw new Error('the list ended before its middle');
  }
  return cursor!;
}

/** A size's requests of each case, by case. */
export type SizeCases = Record<string, Send>;

/** The channel's reads of its catalogue, availability and deliveries, and of its log with every scope. */
export async function channelReads(context: CaseContext): Promise<SizeCases> {
  const { client, size, keys } = context;
  const get = (route: string) => () => client.request('GET', `${API}${route}`, keys.full);
  const { plan, context: history } = size;
  const deepList = encodeURIComponent(await middleOfList(context, plan.properties));
  const dayBack = new Date(size.builtAt.getTime() - DAY_MS).toISOString();
  const lastRoll = new Date(plan.startMs + (BLOCKS - 1) * DAY_MS + ROLL_AT_MS - 1000).toISOString();
  const middleEvent = encodeURIComponent(await eventCursor(context, middleOfHistory(plan)));
  const { cursor: deepDeliveries, deliveryId } = await deliveryCursor(context, middleOfHistory(plan));
  const deliveries = `/webhooks/${history.endpointId}/deliveries`;
  return {
    'GET /properties, first page': get('/properties'),
    'GET /properties, a page in the middle (cursor)': get(`/properties?cursor=${deepList}`),
    'GET /properties?updated_since a day back': get(`/properties?updated_since=${dayBack}`),
    'GET /availability?updated_since the last roll (changes)': get(`/availability?updated_since=${lastRoll}`),
    'GET /events, no cursor': get(`/events?limit=${EVENTS_LIMIT}`),
    'GET /events, cursor in the middle of the log': get(`/events?limit=${EVENTS_LIMIT}&cursor=${middleEvent}`),
    'GET /webhooks/{id}/deliveries, first page': get(deliveries),
    'GET /webhooks/{id}/deliveries, a page in the middle (cursor)': get(
      `${deliveries}?cursor=${encodeURIComponent(deepDeliveries)}`,
    ),
    "GET /webhooks/{id}/deliveries/{id}, one delivery's attempts": get(`${deliveries}/${deliveryId}`),
  };
}

/**
 * A reader of one kind of event at the log's end: it had read everything it can up to the last
 * event of its kind, the log moved on with events it cannot read (the night's roll, the
 * platform's writes), and it polls. The first poll follows pages until none waits; the polls
 * timed then each send the cursor the one before answered, as a poller does.
 */
export async function emptyPoll(
  context: CaseContext,
  key: string,
  readable: 'catalogue' | 'availability',
): Promise<Send> {
  const side = readable === 'availability' ? "type = 'availability.updated'" : "type <> 'availability.updated'";
  const [last] = (
    await context.sql.query<{ position: string }>(
      `select position from event where channel_id = $1 and ${side} order by position desc limit 1`,
      [context.size.context.channelId],
    )
  ).rows;
  let cursor = await eventCursor(context, Number(last!.position));
  const poll = async () => {
    const answer = await context.client.request(
      'GET',
      `${API}/events?limit=${EVENTS_LIMIT}&cursor=${encodeURIComponent(cursor)}`,
      key,
    );
    const page = expectStatus(answer, 200, 'a poll').json as Page;
    cursor = page.next_cursor!;
    return { answer, page };
  };
  for (let pages = 0; (await poll()).page.has_more; pages += 1)
    if (pages > 10_000) throw new Error('the log did not end within 10,000 pages');
  return async () => {
    const { answer, page } = await poll();
    if (page.data.length > 0) throw new Error('a poll at the log’s end found events');
    return answer;
  };
}

/** The platform's writes: the template property changed (its location's and owner's status follow), then its prices for a week. */
export function platformWrites(context: CaseContext, platformToken: string): SizeCases {
  const { client } = context;
  const today = localDate(new Date(), 'Europe/Bucharest');
  const week = yearOfPrices(TEMPLATE_REF, addDays(today, 30), addDays(today, 37), 4);
  return {
    'POST /internal/v1/availability, a week of one property': (i) =>
      client.request('POST', '/internal/v1/availability', platformToken, {
        updates: week.map((night) => ({ ...night, units_available: 1 + (i % 2) })),
      }),
    'PUT /internal/v1/properties/{ref}': (i) =>
      client.request('PUT', `/internal/v1/properties/${TEMPLATE_REF}`, platformToken, templateBody(2 + (i % 2))),
  };
}
