// Event types, subscription patterns and the scopes they need.
// Decisions where the contract is silent:
// - a subscription pattern is `*`, `<kind>.*` or an exact type `<kind>.<action>` (lowercase words):
//   v1 only grows and new event types can appear, so a kind or type this revision does not know
//   yet is accepted; it matches nothing until v1 adds it, then it is delivered like any other;
// - a pattern needs every scope of the known types it can match, so `*` needs both `read:catalog`
//   and `read:ari`; one naming a kind or type not known yet needs both too, since the scope of a
//   type added later cannot be known when the endpoint is registered;
// - `webhook.ping` is sent only by the test and enable operations, straight to one endpoint; it is
//   not in the event log, not subscribable and not matched by `*`.

export const EVENT_TYPES = [
  'property.updated',
  'property.withdrawn',
  'property.distributed',
  'property.deleted',
  'location.updated',
  'location.deleted',
  'owner.updated',
  'owner.deleted',
  'amenity.updated',
  'amenity.deleted',
  'availability.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type EventScope = 'read:catalog' | 'read:ari';

export const PING_EVENT_TYPE = 'webhook.ping';
export const WILDCARD_PATTERN = '*';
export const MAX_EVENT_PATTERNS = 20;
export const MAX_EVENT_PATTERN_LENGTH = 100;

/**
 * What happened, per type: the sentence a channel reads in the description's `webhooks` entry and
 * `<Type>Event` schema (`api/openapi/webhooks.ts`), the ping's included. A record over every type,
 * so a type added to `EVENT_TYPES` does not compile without its sentence.
 */
export const EVENT_MEANINGS: Readonly<Record<EventType | typeof PING_EVENT_TYPE, string>> = {
  'property.updated':
    'A property changed in a way the channel sees, a change of `city_tax_status` included. Read it (`GET /properties/{property_id}`) unless the version held is already as high.',
  'property.withdrawn':
    'A property is no longer published to the channel: the host stopped distributing it, or it may no longer be sold here (an expired Romanian classification). Reading it answers its tombstone; it may come back under the same id with a higher version.',
  'property.distributed':
    'A property is published to the channel: for the first time, or again after a withdrawal (same id, higher version). An `availability.updated` over its horizon follows.',
  'property.deleted': 'A property was deleted for good; its id is never used again.',
  'location.updated':
    'A location changed: its data, address visibility, radius or status. There is no read of one location: list `GET /locations` with `updated_since`.',
  'location.deleted': 'A location was deleted for good; its id is never used again.',
  'owner.updated':
    'An owner changed: its data or status, or its connection to an account on the channel was removed. There is no read of one owner: list `GET /owners` with `updated_since`.',
  'owner.deleted': 'An owner was deleted for good; its id is never used again.',
  'amenity.updated':
    "A release changed an amenity's name, category or OTA codes. List `GET /amenities` with `updated_since`.",
  'amenity.deleted': 'An amenity was retired; its code is never used again.',
  'availability.updated':
    'Nights of a property changed, from `data.from` up to `data.to` (exclusive). It carries no version: always re-read the range, `GET /availability?property_id=…&from=…&to=…`.',
  'webhook.ping':
    'A signed test sent by `POST /webhooks/{webhook_id}/test` and `POST /webhooks/{webhook_id}/enable` to that endpoint alone, whatever it subscribes to. Not in the event log; names the endpoint, not a resource.',
};

/** `*`, `<kind>.*` or `<kind>.<action>`, each name a lowercase word; also the description's pattern. */
export const EVENT_PATTERN_SOURCE = '^(?:\\*|[a-z][a-z0-9_]*\\.(?:\\*|[a-z][a-z0-9_]*))$';
const EVENT_PATTERN_SYNTAX = new RegExp(EVENT_PATTERN_SOURCE);
const EVERY_EVENT_SCOPE: readonly EventScope[] = ['read:ari', 'read:catalog'];

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);
const EVENT_KINDS: ReadonlySet<string> = new Set(EVENT_TYPES.map(eventKind));

export function isEventType(value: string): value is EventType {
  return EVENT_TYPE_SET.has(value);
}

/** `property` for `property.updated`. */
export function eventKind(type: string): string {
  const dot = type.indexOf('.');
  return dot === -1 ? type : type.slice(0, dot);
}

export function scopeForEventType(type: EventType): EventScope {
  return type === 'availability.updated' ? 'read:ari' : 'read:catalog';
}

export function isValidEventPattern(pattern: string): boolean {
  return pattern.length <= MAX_EVENT_PATTERN_LENGTH && EVENT_PATTERN_SYNTAX.test(pattern);
}

/** A pattern naming only what this revision knows: `*`, a known kind's `.*`, a known type. */
function namesKnownEvents(pattern: string): boolean {
  if (pattern === WILDCARD_PATTERN || isEventType(pattern)) return true;
  return pattern.endsWith('.*') && EVENT_KINDS.has(pattern.slice(0, -2));
}

/** Syntactic: `*` and `<kind>.*` also match types added after this list was written. */
export function matchesEventPattern(pattern: string, type: string): boolean {
  if (pattern === WILDCARD_PATTERN) return type !== PING_EVENT_TYPE;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export function matchesAnyEventPattern(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => matchesEventPattern(pattern, type));
}

export function eventTypesForPattern(pattern: string): EventType[] {
  return EVENT_TYPES.filter((type) => matchesEventPattern(pattern, type));
}

/** Scopes a key must hold to subscribe to `pattern`, sorted; empty for an invalid pattern. */
export function scopesForPattern(pattern: string): EventScope[] {
  if (!isValidEventPattern(pattern)) return [];
  if (!namesKnownEvents(pattern)) return [...EVERY_EVENT_SCOPE];
  return [...new Set(eventTypesForPattern(pattern).map(scopeForEventType))].sort();
}

export function scopesForPatterns(patterns: readonly string[]): EventScope[] {
  return [...new Set(patterns.flatMap(scopesForPattern))].sort();
}
