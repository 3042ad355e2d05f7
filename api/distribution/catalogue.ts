import { z } from 'zod';
import { findResource, listEvents, listResources, type ListPosition } from '../../db/catalogue/reads.ts';
import type { ViewKind } from '../../db/catalogue/projector.ts';
import { AMENITIES, amenityRecord } from '../../domain/catalogue/amenities.ts';
import { decodeCursor, encodeCursor, hashQuery, MAX_CURSOR_LENGTH, type CursorPosition } from '../../domain/catalogue/cursor.ts';
import { isExternalId } from '../../domain/catalogue/ids.ts';
import { RESOURCE_STATUSES, type ResourceStatus } from '../../domain/catalogue/status.ts';
import { EVENT_TYPES, scopeForEventType } from '../../domain/events.ts';
import type { Scope } from '../../domain/scopes.ts';
import type { Caller, AppDeps } from '../context.ts';
import { defineOperation, type Operation } from '../operations.ts';
import { ProblemError } from '../../domain/problems.ts';
import { AmenityPage, EventPage, LocationPage, OwnerPage, PropertyOrTombstone, PropertyPage } from '../schemas/catalogue.ts';

/** `updated_since`, event cursors and events are kept this long. */
export const RETENTION_DAYS = 35;
const RETENTION_MS = RETENTION_DAYS * 24 * 3600 * 1000;

const Limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(500)
  .default(100)
  .meta({ description: 'Items per page, 1 to 500; above 500 is refused.' });

const Cursor = z
  .string()
  .min(1)
  .max(MAX_CURSOR_LENGTH)
  .optional()
  .meta({ description: 'The `next_cursor` of the previous page; opaque and bound to the query that produced it.' });

const StatusList = z
  .string()
  .transform((text, ctx) => {
    const values = [...new Set(text.split(',').map((s) => s.trim()))];
    const unknown = values.filter((value) => !(RESOURCE_STATUSES as readonly string[]).includes(value));
    if (unknown.length > 0 || values.length === 0) {
      ctx.addIssue({ code: 'custom', message: `statuses are ${RESOURCE_STATUSES.join(', ')}`, params: { code: 'enum' } });
      return z.NEVER;
    }
    return (values as ResourceStatus[]).sort();
  })
  .optional()
  .meta({ description: 'Comma-separated statuses (`active,inactive`); without `updated_since` only active and inactive records exist.' });

const UpdatedSince = z.iso
  .datetime({ offset: true, message: 'an RFC 3339 instant such as 2026-11-22T09:30:00Z (a fraction of a second is accepted)' })
  .optional()
  .meta({ description: 'Inclusive. Send back the largest `updated_at` received; tombstones are listed too. Older than 35 days: 410 `sync_window_expired`.' });

export const ListQuery = z.object({ limit: Limit, cursor: Cursor, updated_since: UpdatedSince, status: StatusList }).strict();
export const AmenityQuery = z.object({ limit: Limit, cursor: Cursor, updated_since: UpdatedSince }).strict();
type ListQuery = z.infer<typeof ListQuery>;

interface NormalisedQuery {
  limit: number;
  cursor: string | undefined;
  since: Date | undefined;
  statuses: ResourceStatus[] | undefined;
  hash: string;
}

function normalise(kind: string, channelId: string, query: ListQuery | z.infer<typeof AmenityQuery>, deps: AppDeps): NormalisedQuery {
  const since = query.updated_since === undefined ? undefined : new Date(query.updated_since);
  if (since && since.getTime() < deps.clock.now().getTime() - RETENTION_MS) {
    throw new ProblemError('sync_window_expired', { detail: `updated_since is older than ${RETENTION_DAYS} days; resync without it` });
  }
  const statuses = 'status' in query ? query.status : undefined;
  const hash = hashQuery({ kind, channel: channelId, updated_since: since?.toISOString(), status: statuses?.join(',') });
  return { limit: query.limit, cursor: query.cursor, since, statuses, hash };
}

async function position(query: NormalisedQuery, secret: Uint8Array): Promise<CursorPosition | undefined> {
  if (query.cursor === undefined) return undefined;
  const decoded = await decodeCursor(query.cursor, query.hash, secret);
  if (decoded === null) throw new ProblemError('invalid_cursor');
  return decoded;
}

function listPosition(position: CursorPosition | undefined): ListPosition | undefined {
  if (!position) return undefined;
  const { u, i } = position;
  if (typeof u !== 'number' || typeof i !== 'string') throw new ProblemError('invalid_cursor');
  return { updatedAt: new Date(u), id: i };
}

function listOperation(kind: ViewKind, path: string, operationId: string, summary: string, schema: z.ZodType): Operation {
  return defineOperation({
    operationId,
    method: 'get',
    path,
    summary,
    tags: ['Catalogue'],
    scopes: ['read:catalog'],
    query: ListQuery,
    responses: { 200: { description: `A page of ${kind}s and, with \`updated_since\`, tombstones`, schema } },
    problems: ['invalid_parameters', 'invalid_cursor', 'sync_window_expired'],
    handler: async ({ query, caller, deps }) => {
      const normalised = normalise(kind, caller.channel.id, query, deps);
      const after = listPosition(await position(normalised, deps.secrets.server));
      const page = await listResources(deps.orm.em.fork(), caller.channel.id, kind, {
        limit: normalised.limit,
        ...(normalised.since ? { since: normalised.since } : {}),
        ...(normalised.statuses ? { statuses: normalised.statuses } : {}),
        ...(after ? { after } : {}),
      });
      const next = page.next && (await encodeCursor({ u: page.next.updatedAt.getTime(), i: page.next.id }, normalised.hash, deps.secrets.server));
      return { body: { data: page.items, next_cursor: next } };
    },
  }) as Operation;
}

export const listLocations = listOperation('location', '/locations', 'listLocations', 'Locations published to the channel', LocationPage);
export const listOwners = listOperation('owner', '/owners', 'listOwners', 'Owners published to the channel', OwnerPage);
export const listProperties = listOperation('property', '/properties', 'listProperties', 'Properties published to the channel', PropertyPage);

export const getProperty = defineOperation({
  operationId: 'getProperty',
  method: 'get',
  path: '/properties/{property_id}',
  summary: 'One property, or its tombstone',
  tags: ['Catalogue'],
  scopes: ['read:catalog'],
  // Any text: a malformed id is answered `not_found`, like every other unknown id.
  params: z.object({ property_id: z.string().meta({ description: 'A `prp_` id of this channel.' }) }),
  responses: { 200: { description: 'The property, or its tombstone once withdrawn or deleted', schema: PropertyOrTombstone } },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => {
    const found = isExternalId('property', params.property_id) ? await findResource(deps.orm.em.fork(), caller.channel.id, 'property', params.property_id) : null;
    if (!found) throw new ProblemError('not_found');
    return { body: found };
  },
});

/** The amenity catalogue is the same for every channel and ships with the service. */
export const listAmenities = defineOperation({
  operationId: 'listAmenities',
  method: 'get',
  path: '/amenities',
  summary: 'The amenity catalogue',
  tags: ['Catalogue'],
  scopes: ['read:catalog'],
  query: AmenityQuery,
  responses: { 200: { description: 'A page of amenities', schema: AmenityPage } },
  problems: ['invalid_parameters', 'invalid_cursor', 'sync_window_expired'],
  handler: async ({ query, caller, deps }) => {
    const normalised = normalise('amenity', caller.channel.id, query, deps);
    const after = listPosition(await position(normalised, deps.secrets.server));
    const records = AMENITIES.map(amenityRecord)
      .filter((record) => !normalised.since || Date.parse(record.updated_at) >= normalised.since.getTime())
      .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .filter((record) => !after || Date.parse(record.updated_at) > after.updatedAt.getTime() || (Date.parse(record.updated_at) === after.updatedAt.getTime() && record.id > after.id));
    const page = records.slice(0, normalised.limit);
    const last = page.at(-1);
    const next = records.length > normalised.limit && last ? await encodeCursor({ u: Date.parse(last.updated_at), i: last.id }, normalised.hash, deps.secrets.server) : null;
    return { body: { data: page, next_cursor: next } };
  },
});

export const EventQuery = z
  .object({
    limit: Limit,
    cursor: Cursor.meta({ description: 'The `next_cursor` of the previous page. Without it the log is read from its oldest kept event (35 days).' }),
  })
  .strict();

/** Event types a key may read: catalogue events with `read:catalog`, availability events with `read:ari`. */
export function readableEventTypes(scopes: readonly string[]): string[] {
  return EVENT_TYPES.filter((type) => scopes.includes(scopeForEventType(type)));
}

function eventsHash(caller: Caller): string {
  return hashQuery({ kind: 'events', channel: caller.channel.id });
}

export const listEventsOperation = defineOperation({
  operationId: 'listEvents',
  method: 'get',
  path: '/events',
  summary: 'Events in commit order',
  description:
    'The channel\'s events in the order their changes committed: a reader that resumes from `next_cursor` never misses an event that committed after it read. ' +
    'Only the kinds the key\'s scopes cover are listed (`read:catalog`: property, location, owner and amenity events; `read:ari`: `availability.updated`). ' +
    '`next_cursor` is always present: keep it and poll with it; `has_more` says whether the next page is already waiting. A cursor older than 35 days is answered 410 `event_cursor_expired`.',
  tags: ['Events'],
  scopes: [],
  query: EventQuery,
  responses: { 200: { description: 'A page of events', schema: EventPage } },
  problems: ['invalid_parameters', 'invalid_cursor', 'event_cursor_expired', 'insufficient_scope'],
  handler: async ({ query, caller, deps }) => {
    const types = readableEventTypes(caller.key.scopes);
    if (types.length === 0) {
      const required: Scope[] = ['read:ari', 'read:catalog'];
      throw new ProblemError('insufficient_scope', { required_scopes: required, detail: 'Reading events needs read:catalog or read:ari' });
    }
    const now = deps.clock.now();
    const hash = eventsHash(caller);
    let after = 0;
    if (query.cursor !== undefined) {
      const decoded = await decodeCursor(query.cursor, hash, deps.secrets.server);
      if (decoded === null || typeof decoded.p !== 'number' || typeof decoded.t !== 'number') throw new ProblemError('invalid_cursor');
      if (decoded.t < now.getTime() - RETENTION_MS) throw new ProblemError('event_cursor_expired');
      after = decoded.p;
    }
    // Without a cursor the log starts at its oldest kept event; with one, right after its position.
    const since = query.cursor === undefined ? new Date(now.getTime() - RETENTION_MS) : new Date(0);
    const page = await listEvents(deps.orm.em.fork(), caller.channel, { after, since, types, limit: query.limit });
    const last = page.events.at(-1);
    // A cursor ages with the oldest event it still has to read: the last one returned while more
    // wait, else now (whatever commits later is stamped no earlier than what was read). Events are
    // kept 35 days, so a cursor younger than that never points past a pruned event.
    const age = page.hasMore && last ? Date.parse(last.record.occurred_at as string) : now.getTime();
    const next = await encodeCursor({ p: last?.position ?? after, t: age }, hash, deps.secrets.server);
    return { body: { data: page.events.map((event) => event.record), next_cursor: next, has_more: page.hasMore } };
  },
});
