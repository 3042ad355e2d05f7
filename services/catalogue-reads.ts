import type { ViewKind } from '../domain/catalogue/event-type.ts';
import {
  findResource,
  listEvents,
  listResources,
  type ListPosition,
  type StoredRecord,
} from '../db/catalogue/reads.ts';
import { servedAmenities } from '../db/amenities.ts';
import { amenityByCode, amenityRecord } from '../domain/catalogue/amenities.ts';
import { toInstant, wholeSeconds } from '../domain/time.ts';
import { decodeCursor, encodeCursor, hashQuery, type CursorPosition } from '../domain/catalogue/cursor.ts';
import { isExternalId } from '../domain/catalogue/ids.ts';
import { logHoldsPlace, type LogPlace } from '../domain/catalogue/log-position.ts';
import { RETENTION_DAYS, RETENTION_MS } from '../domain/catalogue/retention.ts';
import type { ResourceStatus } from '../domain/catalogue/status.ts';
import { EVENT_TYPES, scopeForEventType } from '../domain/events.ts';
import { ProblemError } from '../domain/problems.ts';
import type { Scope } from '../domain/scopes.ts';
import type { EventRecord } from '../domain/webhooks/sending.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * What a channel reads of the catalogue: its own view of properties, locations and owners, the
 * amenity catalogue, and its event log. Lists are ordered by `(updated_at, id)`, so a record
 * changed during a full sync moves behind the reader and is read again, never skipped; cursors
 * are bound to the query and channel that produced them.
 */

type Deps = Pick<ServiceDeps, 'orm' | 'clock' | 'secrets'>;

export interface ListQuery {
  limit: number;
  cursor?: string | undefined;
  updated_since?: string | undefined;
  /** Sorted, without repeats. */
  status?: ResourceStatus[] | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface NormalisedQuery {
  limit: number;
  cursor: string | undefined;
  since: Date | undefined;
  statuses: ResourceStatus[] | undefined;
  hash: string;
}

function normalise(kind: string, channelId: string, query: ListQuery): NormalisedQuery {
  const since = query.updated_since === undefined ? undefined : new Date(query.updated_since);
  const statuses = query.status;
  const hash = hashQuery({
    kind,
    channel: channelId,
    updated_since: since?.toISOString(),
    status: statuses?.join(','),
  });
  return { limit: query.limit, cursor: query.cursor, since, statuses, hash };
}

/**
 * Where the page starts. A bad cursor is refused before an old `updated_since` is: refusals of
 * what the request got wrong come first, and a resync would not mend the cursor.
 */
async function position(query: NormalisedQuery, deps: Deps): Promise<CursorPosition | undefined> {
  const decoded =
    query.cursor === undefined ? undefined : await decodeCursor(query.cursor, query.hash, deps.secrets.ring);
  if (decoded === null) throw new ProblemError('invalid_cursor');
  if (query.since && query.since.getTime() < deps.clock.now().getTime() - RETENTION_MS) {
    throw new ProblemError('sync_window_expired', {
      detail: `updated_since is older than ${RETENTION_DAYS} days; resync without it`,
    });
  }
  return decoded;
}

function listPosition(position: CursorPosition | undefined): ListPosition | undefined {
  if (!position) return undefined;
  const { u, i } = position;
  if (typeof u !== 'number' || typeof i !== 'string') throw new ProblemError('invalid_cursor');
  return { updatedAt: new Date(u), id: i };
}

/**
 * One page of the channel's view of a kind; with `updated_since`, tombstones too. Records come as
 * their served JSON text with their id and version, which name it: a page is named by those and
 * its cursor.
 */
export async function listView(
  deps: Deps,
  channelId: string,
  kind: ViewKind,
  query: ListQuery,
): Promise<Page<StoredRecord>> {
  const normalised = normalise(kind, channelId, query);
  const after = listPosition(await position(normalised, deps));
  const page = await listResources(deps.orm.em, channelId, kind, {
    limit: normalised.limit,
    ...(normalised.since ? { since: normalised.since } : {}),
    ...(normalised.statuses ? { statuses: normalised.statuses } : {}),
    ...(after ? { after } : {}),
  });
  const next =
    page.next &&
    (await encodeCursor({ u: page.next.updatedAt.getTime(), i: page.next.id }, normalised.hash, deps.secrets.ring));
  return { items: page.items, nextCursor: next };
}

/** One property of the channel's view, or its tombstone; a malformed id is not found like any unknown one. */
export async function findProperty(
  deps: Pick<ServiceDeps, 'orm'>,
  channelId: string,
  propertyId: string,
): Promise<StoredRecord> {
  const found = isExternalId('property', propertyId)
    ? await findResource(deps.orm.em, channelId, 'property', propertyId)
    : null;
  if (!found) throw new ProblemError('not_found');
  return found;
}

/** The amenity catalogue is the same for every channel and ships with the service; it pages like the lists. */
type AmenityListed =
  ReturnType<typeof amenityRecord> | { id: string; status: 'deleted'; version: number; updated_at: string };

export async function listAmenities(
  deps: Deps,
  channelId: string,
  query: Omit<ListQuery, 'status'>,
): Promise<Page<AmenityListed>> {
  const normalised = normalise('amenity', channelId, query);
  const after = listPosition(await position(normalised, deps));
  // Retired amenities are tombstones, listed only in a change listing like every other resource.
  const records = (await servedAmenities(deps.orm.em.fork()))
    .flatMap((row): AmenityListed[] => {
      const release = { version: row.version, updated_at: toInstant(row.updatedAt) };
      if (row.status === 'deleted') return normalised.since ? [{ id: row.code, status: 'deleted', ...release }] : [];
      const definition = amenityByCode(row.code);
      return definition ? [amenityRecord(definition, release)] : [];
    })
    .filter((record) => !normalised.since || Date.parse(record.updated_at) >= normalised.since.getTime())
    .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .filter(
      (record) =>
        !after ||
        Date.parse(record.updated_at) > after.updatedAt.getTime() ||
        (Date.parse(record.updated_at) === after.updatedAt.getTime() && record.id > after.id),
    );
  const page = records.slice(0, normalised.limit);
  const last = page.at(-1);
  const next =
    records.length > normalised.limit && last
      ? await encodeCursor({ u: Date.parse(last.updated_at), i: last.id }, normalised.hash, deps.secrets.ring)
      : null;
  return { items: page, nextCursor: next };
}

/** Event types a key may read: catalogue events with `read:catalog`, availability events with `read:ari`. */
export function readableEventTypes(scopes: readonly string[]): string[] {
  return EVENT_TYPES.filter((type) => scopes.includes(scopeForEventType(type)));
}

export interface EventPage {
  events: EventRecord[];
  /** Always present: the reader keeps it and polls with it. */
  nextCursor: string;
  hasMore: boolean;
}

/**
 * An event cursor's place in the log: 400 `invalid_cursor` for one that is not the service's,
 * 410 `event_cursor_expired` once it is older than the log keeps events. Its event id (`e`) is
 * absent from cursors issued before it was carried: those are read as before.
 */
async function eventCursorPlace(
  cursor: string,
  hash: string,
  now: Date,
  deps: Deps,
): Promise<LogPlace & { stamp?: number | undefined }> {
  const decoded = await decodeCursor(cursor, hash, deps.secrets.ring);
  if (
    decoded === null ||
    typeof decoded.p !== 'number' ||
    typeof decoded.t !== 'number' ||
    (decoded.e !== undefined && typeof decoded.e !== 'string') ||
    (decoded.s !== undefined && typeof decoded.s !== 'number')
  )
    throw new ProblemError('invalid_cursor');
  if (decoded.t < now.getTime() - RETENTION_MS) throw new ProblemError('event_cursor_expired');
  return { position: decoded.p, eventId: decoded.e, stamp: decoded.s };
}

/**
 * The channel's events in commit order, of the kinds the key's scopes cover, from the oldest kept
 * (35 days) or right after the cursor's position.
 */
export async function readEvents(
  deps: Deps,
  channel: { id: string; name: string },
  scopes: readonly string[],
  query: { limit: number; cursor?: string | undefined },
): Promise<EventPage> {
  const types = readableEventTypes(scopes);
  if (types.length === 0) {
    const required: Scope[] = ['read:catalog', 'read:ari'];
    throw new ProblemError('insufficient_scope', {
      required_scopes: required,
      required_scopes_match: 'any',
      detail: 'Needs any one of read:catalog, read:ari',
    });
  }
  const now = deps.clock.now();
  const hash = hashQuery({ kind: 'events', channel: channel.id });
  const place: LogPlace & { stamp?: number | undefined } =
    query.cursor === undefined ? { position: 0 } : await eventCursorPlace(query.cursor, hash, now, deps);
  // Without a cursor the log starts at its oldest kept event (35 days); with one, right after its
  // position, in the days from its event's stamp on (`s`; absent from cursors issued before it was carried).
  const since = query.cursor === undefined ? new Date(now.getTime() - RETENTION_MS) : undefined;
  const page = await listEvents(deps.orm.em.fork(), channel.id, {
    after: place.position,
    since,
    from: place.stamp === undefined ? undefined : new Date(place.stamp),
    types,
    limit: query.limit,
  });
  if (!logHoldsPlace(place, page.log)) {
    throw new ProblemError('event_cursor_expired', {
      detail:
        "The event log does not hold this cursor's position (the service's data was restored from a backup taken before it). " +
        'Replace what you hold with a full listing and read the log again without a cursor.',
    });
  }
  const last = page.events.at(-1);
  // A cursor ages with the oldest event it still has to read: the last one returned while more
  // wait (at the whole second its record shows), else now (whatever commits later is stamped no
  // earlier than what was read). Events are kept 35 days, so a cursor younger than that never
  // points past a pruned event.
  const age = page.hasMore && last ? wholeSeconds(last.occurredAt).getTime() : now.getTime();
  // A page that is not full returned every event of the key's kinds up to the log's last kept
  // one, all committed when it was read: the cursor moves there, past the events the key cannot
  // read, so the next poll starts at the log's end instead of walking them again. A full page's
  // cursor is its last event.
  const tail = page.tail;
  const reached = !page.hasMore && tail !== null && tail.position > place.position ? tail : last;
  // It names the event at its position, so a log that no longer holds that event refuses it
  // (logHoldsPlace). An empty page at the log's end keeps the cursor's event; a cursor from before
  // ids were carried gets the one the log holds there, now that the log was found to reach that far.
  const anchor = page.log.atOrBefore;
  const eventId =
    reached?.id ?? place.eventId ?? (anchor !== null && anchor.position === place.position ? anchor.id : undefined);
  // And the stamp of that event (every later one is stamped no earlier), or, for a first page that
  // reached none, the start of the 35 days it read from.
  const stamp = reached?.occurredAt.getTime() ?? place.stamp ?? since?.getTime();
  const next = await encodeCursor(
    {
      p: reached?.position ?? place.position,
      t: age,
      ...(eventId === undefined ? {} : { e: eventId }),
      ...(stamp === undefined ? {} : { s: stamp }),
    },
    hash,
    deps.secrets.ring,
  );
  return {
    events: page.events.map((event) => ({
      id: event.id,
      type: event.type,
      occurred_at: toInstant(event.occurredAt),
      channel: channel.name,
      // The log's JSON, written with these fields by its writers (`StoredEventData`).
      data: event.data as EventRecord['data'],
    })),
    nextCursor: next,
    hasMore: page.hasMore,
  };
}
