import type { Channel } from '../db/channels.ts';
import {
  announceAmenity,
  channelIdsOf,
  channelLogMark,
  eventAtMark,
  eventsAfter,
  retireSandboxAmenity,
  servedAmenityOf,
  type LogMark,
  type LoggedEvent,
} from '../db/sandbox-trigger.ts';
import { AvailabilityBatch } from '../domain/availability/nights.ts';
import { encodeCursor, hashQuery } from '../domain/catalogue/cursor.ts';
import { LocationInput, OwnerInput, PropertyInput } from '../domain/catalogue/source.ts';
import { EVENT_TYPES, PING_EVENT_TYPE, scopeForEventType, type EventType } from '../domain/events.ts';
import { ProblemError } from '../domain/problems.ts';
import { missingScopes, type Scope } from '../domain/scopes.ts';
import { addDays, localDate } from '../domain/time.ts';
import { postAvailability } from './availability.ts';
import { putLocation, putOwner, putProperty } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { readableEventTypes } from './catalogue-reads.ts';
import { writeAndNotify } from './durable-processes.ts';
import {
  createAndDelete,
  distributeView,
  ensureView,
  viewContent,
  viewDistributed,
  viewIds,
  viewRef,
  type TriggerChannel,
} from './sandbox-trigger-view.ts';
import { listChannelEndpoints, pingEndpoint, type PingOutcome } from './webhooks.ts';

/**
 * `POST /sandbox/triggers`: a real change in the channel's own corner of the sandbox
 * (services/sandbox-trigger-view.ts) that produces an event of the asked type, made through the
 * platform's services, so it is numbered in the channel's log and delivered like any other; a
 * precondition (a withdrawn property to distribute, a record to delete) is made first and its
 * events answered too. Sandbox only: the operation does not exist in production.
 */

export const TRIGGER_TYPES = [...EVENT_TYPES, PING_EVENT_TYPE] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** A sandbox-only amenity, retired once, for `amenity.deleted` where no release retired one. */
export const SANDBOX_RETIRED_AMENITY = 'sandbox_retired';

export interface TriggeredEvent {
  type: string;
  eventId: string;
  object: string;
  id: string;
  version: number | null;
}

export interface TriggerOutcome {
  type: TriggerType;
  events: TriggeredEvent[];
  /** A `GET /events` cursor just before the first event answered; null when none was appended. */
  cursor: string | null;
  pings: (PingOutcome & { webhookId: string })[];
}

/** The scope a key needs to trigger `type`: the one that reads it, or `manage:webhooks` for a ping. */
export function scopeToTrigger(type: TriggerType): Scope {
  return type === PING_EVENT_TYPE ? 'manage:webhooks' : scopeForEventType(type);
}

/** One trigger of a channel at a time in this process: each reads the log from where it stood. */
const running = new Map<string, Promise<unknown>>();

export async function trigger(
  deps: ServiceDeps,
  channel: Channel,
  scopes: readonly string[],
  type: TriggerType,
): Promise<TriggerOutcome> {
  const needed = scopeToTrigger(type);
  if (missingScopes(scopes, [needed]).length > 0)
    throw new ProblemError('insufficient_scope', {
      required_scopes: [needed],
      detail: `Triggering ${type} needs ${needed}, the scope that reads it`,
    });
  if (type === PING_EVENT_TYPE) return { type, events: [], cursor: null, pings: await pingAll(deps, channel) };
  const before = running.get(channel.id) ?? Promise.resolve();
  const readable = new Set(readableEventTypes(scopes));
  const run = before.catch(() => undefined).then(() => triggerEvent(deps, channel, type, readable));
  running.set(channel.id, run);
  try {
    return await run;
  } finally {
    if (running.get(channel.id) === run) running.delete(channel.id);
  }
}

/** A signed `webhook.ping` to each of the channel's active endpoints, one after the other. */
async function pingAll(deps: ServiceDeps, channel: Channel): Promise<TriggerOutcome['pings']> {
  const pings: TriggerOutcome['pings'] = [];
  for (const endpoint of await listChannelEndpoints(deps, channel)) {
    if (endpoint.status !== 'active') continue;
    pings.push({ webhookId: endpoint.id, ...(await pingEndpoint(deps, channel, endpoint.id)) });
  }
  return pings;
}

/** The change's events the key reads (as `GET /events` lists them), and a cursor to read them from. */
async function triggerEvent(
  deps: ServiceDeps,
  channel: TriggerChannel,
  type: EventType,
  readable: ReadonlySet<string>,
): Promise<TriggerOutcome> {
  const em = deps.orm.em.fork();
  const mark = await channelLogMark(em, channel.id);
  await ensureView(deps, channel);
  const { written = [], amenity } = await change(deps, channel, type);
  const internalIds = [...(await viewIds(deps, channel)), ...written];
  const named = new Set([...(await channelIdsOf(em, channel.id, internalIds)), ...(amenity ? [amenity] : [])]);
  const events = (await eventsAfter(em, channel.id, mark)).filter(
    (event) => named.has(event.data.id ?? '') && readable.has(event.type),
  );
  return { type, events: events.map(triggered), cursor: await cursorAt(deps, channel, mark, events), pings: [] };
}

function triggered(event: LoggedEvent): TriggeredEvent {
  return {
    type: event.type,
    eventId: event.id,
    object: event.data.object ?? '',
    id: event.data.id ?? '',
    version: typeof event.data.version === 'number' ? event.data.version : null,
  };
}

/** A cursor of `GET /events` at the mark: the read from it starts with the first event answered. */
async function cursorAt(
  deps: ServiceDeps,
  channel: TriggerChannel,
  mark: LogMark,
  events: readonly LoggedEvent[],
): Promise<string | null> {
  if (events.length === 0) return null;
  const there = await eventAtMark(deps.orm.em.fork(), channel.id, mark);
  return encodeCursor(
    {
      p: mark.position,
      t: deps.clock.now().getTime(),
      ...(there ? { e: there.id, s: there.occurredAt.getTime() } : {}),
    },
    hashQuery({ kind: 'events', channel: channel.id }),
    deps.secrets.ring,
  );
}

/** `name` with the trigger's mark added, or taken off when it has it: a change every time. */
function toggled(name: string): string {
  const mark = ' (sandbox)';
  return name.endsWith(mark) ? name.slice(0, -mark.length) : `${name}${mark}`;
}

/**
 * Makes the change that yields `type`; answers the internal ids of records it wrote beside the
 * view's (those it deleted) or the amenity it announced, so that only their events are answered.
 */
async function change(
  deps: ServiceDeps,
  channel: TriggerChannel,
  type: EventType,
): Promise<{ written?: string[]; amenity?: string }> {
  const own = (part: 'owner' | 'location' | 'property') => viewContent(deps, channel, part);
  // Every change but a distribution's needs the property shown: a withdrawn one's changes reach no channel.
  if (type !== 'property.distributed' && type !== 'property.withdrawn' && !type.endsWith('.deleted'))
    if (!(await viewDistributed(deps, channel))) await distributeView(deps, channel, true);
  switch (type) {
    case 'property.distributed':
    case 'property.withdrawn': {
      const shown = type === 'property.distributed';
      if ((await viewDistributed(deps, channel)) === shown) await distributeView(deps, channel, !shown);
      await distributeView(deps, channel, shown);
      return {};
    }
    case 'property.updated': {
      const content = await own('property');
      const area = Number(content.area_sqm ?? 30);
      await putProperty(
        deps,
        viewRef(channel.id, 'property'),
        PropertyInput.parse({ ...content, area_sqm: area % 2 === 0 ? area + 1 : area - 1 }),
      );
      return {};
    }
    case 'location.updated': {
      const content = await own('location');
      await putLocation(
        deps,
        viewRef(channel.id, 'location'),
        LocationInput.parse({ ...content, name: toggled(String(content.name)) }),
      );
      return {};
    }
    case 'owner.updated': {
      const content = await own('owner');
      await putOwner(
        deps,
        viewRef(channel.id, 'owner'),
        OwnerInput.parse({ ...content, display_name: toggled(String(content.display_name)) }),
      );
      return {};
    }
    case 'property.deleted':
    case 'location.deleted':
    case 'owner.deleted':
      return { written: await createAndDelete(deps, channel, type.split('.')[0] as 'property' | 'location' | 'owner') };
    case 'availability.updated':
      await changeNight(deps, channel);
      return {};
    case 'amenity.updated':
    case 'amenity.deleted':
      return { amenity: await announce(deps, channel, type) };
  }
}

/** A week ahead, the view's property's units that night: 1, or 2 when it already had 1. */
async function changeNight(deps: ServiceDeps, channel: TriggerChannel): Promise<void> {
  const location = await viewContent(deps, channel, 'location');
  const from = addDays(localDate(deps.clock.now(), String(location.timezone)), 7);
  const update = (units: number) =>
    postAvailability(
      deps,
      AvailabilityBatch.parse({
        updates: [{ property: viewRef(channel.id, 'property'), from, to: addDays(from, 1), units_available: units }],
      }),
    );
  const first = await update(1);
  if (first.results.every((result) => result.changed_nights === 0)) await update(2);
}

/**
 * The amenity catalogue is one for every channel and changes only with a release, so no change
 * could be this channel's alone: the trigger announces to this channel only an amenity as it is
 * served now (an active one for `amenity.updated`, a retired one for `amenity.deleted`), at its
 * current version. A sandbox whose releases never retired an amenity retires the sandbox-only
 * SANDBOX_RETIRED_AMENITY once, for every channel of the sandbox: a tombstone no property names.
 */
async function announce(
  deps: ServiceDeps,
  channel: TriggerChannel,
  type: 'amenity.updated' | 'amenity.deleted',
): Promise<string> {
  const status = type === 'amenity.updated' ? 'active' : 'deleted';
  return writeAndNotify(deps, async (tx) => {
    let amenity = await servedAmenityOf(tx, status);
    if (!amenity && status === 'deleted') {
      await retireSandboxAmenity(tx, SANDBOX_RETIRED_AMENITY, deps.clock.now());
      amenity = await servedAmenityOf(tx, status);
    }
    if (!amenity) throw new Error('the amenity catalogue has no amenity to announce');
    await announceAmenity(tx, channel.id, type, amenity, deps.clock.now());
    return amenity.code;
  });
}
