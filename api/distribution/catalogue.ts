import { z } from 'zod';
import type { ViewKind } from '../../db/catalogue/projector.ts';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { RESOURCE_STATUSES, type ResourceStatus } from '../../domain/catalogue/status.ts';
import { RETENTION_DAYS } from '../../domain/catalogue/retention.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../domain/pages.ts';
import { findProperty, listAmenities as amenityPage, listView, readEvents } from '../../services/catalogue-reads.ts';
import { BufferPool, joinedUtf8 } from '../../infra/buffer-pool.ts';
import { defineOperation, type RoutedOperation } from '../operations.ts';
import { AmenityPage } from '../schemas/amenities.ts';
import { LocationPage, OwnerPage, PropertyOrTombstone, PropertyPage } from '../schemas/catalogue.ts';
import { EventPage } from '../schemas/events.ts';

const Limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(PAGE_LIMIT_MAX)
  .default(PAGE_LIMIT_DEFAULT)
  .meta({ description: `Items per page, 1 to ${PAGE_LIMIT_MAX}; above ${PAGE_LIMIT_MAX} is refused.` });

const Cursor = z.string().min(1).max(MAX_CURSOR_LENGTH).optional().meta({
  pattern: CURSOR_PATTERN,
  description:
    'The `next_cursor` of the previous page; opaque and bound to the query that produced it. Any other value, one of this shape included, is refused with 400 `invalid_cursor`.',
});

/** What StatusList accepts: one or more known statuses, comma-separated, blanks around each allowed. */
function statusListPattern(): string {
  const one = `\\s*(?:${RESOURCE_STATUSES.join('|')})\\s*`;
  return `^${one}(?:,${one})*$`;
}

const StatusList = z
  .string()
  .transform((text, ctx) => {
    const values = [...new Set(text.split(',').map((s) => s.trim()))];
    const unknown = values.filter((value) => !(RESOURCE_STATUSES as readonly string[]).includes(value));
    if (unknown.length > 0 || values.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `statuses are ${RESOURCE_STATUSES.join(', ')}`,
        params: { code: 'enum' },
      });
      return z.NEVER;
    }
    return (values as ResourceStatus[]).sort();
  })
  .optional()
  .meta({
    pattern: statusListPattern(),
    description:
      'Comma-separated statuses (`active,inactive`); without `updated_since` only active and inactive records exist. Empty or an unknown status: 400 `invalid_parameters`.',
  });

const UpdatedSince = z.iso
  .datetime({
    offset: true,
    message: 'an RFC 3339 instant such as 2026-11-22T09:30:00Z (a fraction of a second is accepted)',
  })
  .optional()
  .meta({
    description: `Inclusive. Send back the largest \`updated_at\` received; tombstones are listed too. Older than ${RETENTION_DAYS} days: 410 \`sync_window_expired\`.`,
  });

export const ListQuery = z
  .object({ limit: Limit, cursor: Cursor, updated_since: UpdatedSince, status: StatusList })
  .strict();
export const AmenityQuery = z.object({ limit: Limit, cursor: Cursor, updated_since: UpdatedSince }).strict();
/**
 * Buffers of catalogue pages (about 5 KB a record, up to 500 records a page, room for 3 bytes a
 * character): one per page being written or sent, a few kept.
 */
const pageBuffers = new BufferPool({ keep: 8, minBytes: 2 * 2 ** 20, maxBytes: 8 * 2 ** 20 });

function listOperation<Schema extends z.ZodType>(
  kind: ViewKind,
  path: string,
  operationId: string,
  summary: string,
  schema: Schema,
): RoutedOperation {
  return defineOperation({
    operationId,
    method: 'get',
    path,
    summary,
    tags: ['Catalogue'],
    scopes: ['read:catalog'],
    readsCallerIdentityOnly: true,
    paged: true,
    query: ListQuery,
    responses: { 200: { description: `A page of ${kind}s and, with \`updated_since\`, tombstones`, schema } },
    problems: ['invalid_parameters', 'invalid_cursor', 'sync_window_expired'],
    handler: async ({ query, caller, deps, res }) => {
      const page = await listView(deps, caller.channel.id, kind, query);
      // The records' stored text, spliced and written as bytes record by record (`joinedUtf8`); the
      // buffer is reused once the answer is closed. The page is named by its ids, versions and cursor.
      const records = joinedUtf8(
        pageBuffers,
        page.items.map((item) => item.json),
      );
      res.once('close', records.release);
      return {
        jsonChunks: ['{"data":[', records.bytes, `],"next_cursor":${JSON.stringify(page.nextCursor)}}`],
        etagBasis: `${kind}s|${page.items.map((item) => `${item.id}:${item.version}`).join(',')}|${page.nextCursor ?? ''}`,
        nextCursor: page.nextCursor,
      };
    },
  });
}

export const listLocations = listOperation(
  'location',
  '/locations',
  'listLocations',
  'Locations published to the channel',
  LocationPage,
);
export const listOwners = listOperation('owner', '/owners', 'listOwners', 'Owners published to the channel', OwnerPage);
export const listProperties = listOperation(
  'property',
  '/properties',
  'listProperties',
  'Properties published to the channel',
  PropertyPage,
);

export const getProperty = defineOperation({
  operationId: 'getProperty',
  method: 'get',
  path: '/properties/{property_id}',
  summary: 'One property, or its tombstone',
  tags: ['Catalogue'],
  scopes: ['read:catalog'],
  readsCallerIdentityOnly: true,
  // Any text: a malformed id is answered `not_found`, like every other unknown id.
  params: z.object({ property_id: z.string().meta({ description: 'A `prp_` id of this channel.' }) }),
  responses: {
    200: { description: 'The property, or its tombstone once withdrawn or deleted', schema: PropertyOrTombstone },
  },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => {
    const found = await findProperty(deps, caller.channel.id, params.property_id);
    return { json: found.json, etagBasis: `property|${found.id}:${found.version}` };
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
  readsCallerIdentityOnly: true,
  paged: true,
  query: AmenityQuery,
  responses: { 200: { description: 'A page of amenities', schema: AmenityPage } },
  problems: ['invalid_parameters', 'invalid_cursor', 'sync_window_expired'],
  handler: async ({ query, caller, deps }) => {
    const page = await amenityPage(deps, caller.channel.id, query);
    return { body: { data: page.items, next_cursor: page.nextCursor }, nextCursor: page.nextCursor };
  },
});

export const EventQuery = z
  .object({
    limit: Limit,
    cursor: Cursor.meta({
      pattern: CURSOR_PATTERN,
      description: `The \`next_cursor\` of the previous page. Without it the log is read from its oldest kept event (${RETENTION_DAYS} days). Any other value is refused with 400 \`invalid_cursor\`.`,
    }),
  })
  .strict();

export const listEventsOperation = defineOperation({
  operationId: 'listEvents',
  method: 'get',
  path: '/events',
  summary: 'Events in commit order',
  description:
    "The channel's events in the order their changes committed: a reader that resumes from `next_cursor` never misses an event that committed after it read. " +
    "Only the kinds the key's scopes cover are listed (`read:catalog`: property, location, owner and amenity events; `read:ari`: `availability.updated`). " +
    '`next_cursor` is always present: keep it and poll with it; `has_more` says whether the next page is already waiting. ' +
    `A cursor older than ${RETENTION_DAYS} days is answered 410 \`event_cursor_expired\`. ` +
    "So is a cursor whose position the log no longer holds: the service's data was restored from a backup taken before it, and the positions after the backup went to new events; replace what you hold with a full listing and read the log again without a cursor.",
  tags: ['Events'],
  scopes: [],
  anyOfScopes: ['read:catalog', 'read:ari'],
  readsCallerIdentityOnly: true,
  paged: true,
  query: EventQuery,
  responses: { 200: { description: 'A page of events', schema: EventPage } },
  problems: ['invalid_parameters', 'invalid_cursor', 'event_cursor_expired', 'insufficient_scope'],
  handler: async ({ query, caller, deps }) => {
    const page = await readEvents(deps, caller.channel, caller.key.scopes, query);
    // The log's cursor is always there to poll with; only a page already waiting is linked.
    return {
      body: { data: page.events, next_cursor: page.nextCursor, has_more: page.hasMore },
      nextCursor: page.hasMore ? page.nextCursor : null,
    };
  },
});
