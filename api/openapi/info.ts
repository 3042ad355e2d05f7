import { API_KEY_LENGTH } from '../../domain/api-keys.ts';
import { SCOPES } from '../../domain/scopes.ts';
import type { Operation } from '../operations.ts';
import { revisionFromChangelog } from './changelog-revision.ts';

/** Revision of the description: the newest entry of `CHANGELOG.md` (written first, so this reads it). */
export const API_REVISION = revisionFromChangelog(new URL('./CHANGELOG.md', import.meta.url));

export const TAG_DESCRIPTIONS: Record<string, string> = {
  Channel: 'The calling channel, its environment and the key it used.',
  Catalogue: 'Locations, owners, properties and the amenity catalogue published to the channel.',
  Availability: 'Nightly availability, prices and restrictions, and the exact price of a stay.',
  Events: 'Every change visible to the channel, in commit order; webhooks announce the same events.',
  'Listing reports': 'What the channel did with each property, and its daily listing statistics.',
  'Owner connect': "Linking a host's owner record to an account on the channel.",
  Webhooks: "The channel's webhook endpoints, their secrets and their deliveries.",
  Description: 'This machine-readable description and its changelog.',
  Sandbox:
    "Tools of the sandbox only: make an event happen, read your own requests back, run the clocks (attempt a waiting delivery now, an endpoint's retries in minutes, an owner-connect window ended now), and certify your integration. Not in production.",
};

const SCOPE_MEANINGS: Record<(typeof SCOPES)[number], string> = {
  'read:catalog': 'Locations, owners, properties, amenity catalogue, and the events about them',
  'read:ari': 'Availability, prices, restrictions, and `availability.updated` events',
  'manage:webhooks': 'Webhook endpoints, their secrets and deliveries',
  'write:listings': 'Listing reports and listing statistics',
  'write:bookings': 'Reserved for a later stage; not granted',
};

/** Operations whose scope the contract does not show: the scope they need is this service's choice. */
export const SCOPE_CHOSEN_HERE = new Set([
  'getListingReport',
  'getOwnerConnectKeys',
  'putOwnerConnection',
  'deleteOwnerConnection',
  'listEvents',
  'listProperties',
  'listWebhooks',
  'getWebhook',
  'deleteWebhook',
  'getQuote',
]);

const quoted = (scopes: readonly string[], joiner: string) => scopes.map((s) => `\`${s}\``).join(joiner);

/** `a key with `read:catalog` or `read:ari``: what the operation's key must hold, in words. */
function neededScopes(operation: Operation): string {
  const all = operation.scopes ?? [];
  const any = operation.anyOfScopes ?? [];
  if (all.length === 0 && any.length === 0) return 'any valid key, no scope';
  const parts = [
    ...(all.length > 0 ? [quoted(all, ' and ')] : []),
    ...(any.length > 0 ? [`${any.length > 1 ? 'any one of ' : ''}${quoted(any, ' or ')}`] : []),
  ];
  return `a key with ${parts.join(' and ')}`;
}

export function scopeText(operation: Operation): string {
  if (operation.scopes === null) return 'No key needed.';
  const needs = neededScopes(operation);
  const chosen = SCOPE_CHOSEN_HERE.has(operation.operationId)
    ? ' The contract leaves this scope unshown; this revision chose it.'
    : '';
  return `Needs ${needs}.${chosen}`;
}

export function infoDescription(operations: readonly Operation[], base: string): string {
  const chosen = operations
    .filter((op) => SCOPE_CHOSEN_HERE.has(op.operationId))
    .map(
      (op) =>
        `- \`${op.method.toUpperCase()} ${op.path}\`: ${op.scopes === null ? 'no key' : neededScopes(op).replace(/^a key with /, '')}`,
    );
  return `The distribution interface of the Distribution Service: listing channels read what hosts publish to them, get a signed webhook for every change, and report back what they did with it. This description is generated from the registry the service routes from, so the two cannot drift apart.

## Authentication

Every operation except this description and its changelog needs the channel's key, sent as \`Authorization: Bearer <API_KEY>\`. A key belongs to one channel and one environment: production keys start \`svc_live_\`, sandbox keys \`svc_test_\`. A key is ${API_KEY_LENGTH} characters and ends in a CRC32 checksum, so a mistyped, truncated or other-environment key is refused before any lookup. A refused key is answered 401 (\`missing_api_key\`, \`invalid_api_key\`, \`api_key_wrong_environment\`, \`api_key_expired\`, \`api_key_revoked\`) with a \`WWW-Authenticate\` challenge; a suspended channel 403 \`partner_suspended\`; repeated failures from one address 429 \`too_many_failed_authentications\`.

The interface is served over HTTPS only (TLS 1.2 or later). Plain HTTP is refused with 403 \`https_required\` and never redirected: treat a key sent that way as compromised and roll it.

## Scopes

| Scope | Gives |
| - | - |
${SCOPES.map((scope) => `| \`${scope}\` | ${SCOPE_MEANINGS[scope]} |`).join('\n')}

Each operation names the scopes it needs in its description, in \`x-required-scopes\`, and in its security requirement (\`ApiKey: [scopes]\`: OpenAPI 3.1 allows a scope list on any scheme, and bearer schemes have no other place for it). A key lacking one is answered 403 \`insufficient_scope\` with the missing scopes in \`required_scopes\`; where one of several scopes is enough (\`GET /events\`), the security requirement lists each alternative, and the refusal lists them with \`required_scopes_match: "any"\`.

## Rate limits

Every authenticated request counts against the channel's per-minute limit (at least 600; \`rate_limit.per_minute\` of \`GET /channel\`), refusals included; an availability page costs \`max(1, ceil(nights / 1000))\` units. Over the limit the answer is 429 \`rate_limited\` with \`Retry-After\` in seconds. Every answer to a request carrying a usable key carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (the stable contract) and the provisional draft fields \`RateLimit-Policy\` and \`RateLimit\`.

## Problem details

Refusals are RFC 9457 problem details (\`application/problem+json\`, schema \`Problem\`). Branch on \`code\` or \`type\`, never on \`title\`, which follows \`Accept-Language\` (\`en\`, \`ro\`). \`type\` resolves to a page describing the problem; \`instance\` is \`urn:uuid:\` and the \`Request-Id\` that every answer carries. Each operation lists, per status, the codes it can answer (also as \`x-problem-codes\`). The list of codes is open: treat an unknown code by its status. A 400 \`invalid_parameters\` names every rule the request breaks at once, one \`errors\` entry each (a property the channel does not see beside a count out of range, a date outside its window beside an unknown field); only a rule that reads a field whose own shape is broken waits until that field is fixed. A refused write writes nothing.

## Compression

Send \`Accept-Encoding\` to have answers of 1 KiB or more compressed: \`zstd\`, \`br\` and \`gzip\` are served (RFC 9110 §12.5.3: weights with \`q\`, \`*\` for any coding not named, \`identity\` for none; among equal weights zstd, then br, then gzip). A full availability pull is about 4 GiB of JSON as it is and a small fraction of that compressed: a channel pulling it over the internet should ask for one of them. Smaller answers, 304s and answers without the header go as they are (\`identity\`); a header that refuses every coding, \`identity\` included, is disregarded rather than answered 406. Answers that may be compressed carry \`Vary: Accept-Encoding\`. A compressed answer's weak \`ETag\` is the identity one with the coding appended (\`W/"…-zstd"\`), so the two representations never share a tag; \`If-None-Match\` with either tag of the same content answers 304.

## Versioning

This is revision ${API_REVISION} of v1, under \`${base}\`. The description keeps one address for all of v1 (\`${base}/openapi.json\`); \`info.version\` says which revision a copy is, and \`${base}/CHANGELOG.md\` records each revision's changes. v1 only grows: new fields, enum values, event types, legal identifier schemes and error codes can appear within it, so accept unknown enum values and ignore unknown fields (answer schemas list what this revision knows and do not forbid more). A breaking change is a new major version at \`/v2\`, announced at least 30 days ahead with \`Deprecation\` and \`Sunset\` headers on the affected operations. Every resource also carries an integer \`version\`: apply a resource only when its version is higher than the one held.

Operations marked \`x-svc-availability: planned\` are part of the contract but not served yet: they authenticate and check the scope, then answer 501 \`not_implemented\`. The mark disappears when an operation is served, on the sandbox first.

## Decisions of this revision

- Scopes the contract leaves unshown:
${chosen.join('\n')}
- \`GET /events\` takes a key with \`read:catalog\` or \`read:ari\` (its security requirement lists the two alternatives, \`x-required-scopes-any\` names them); the events it returns follow the key's scopes by event kind. A key with neither is refused 403 \`insufficient_scope\` with \`required_scopes\` naming both and \`required_scopes_match: "any"\`: one of them is enough.
- 405 \`method_not_allowed\` (with \`Allow\`) and 503 \`service_unavailable\` are listed on every operation, as the contract answers them the same way on every path.
- An unknown path (404 \`not_found\`) and a known path with another method (405) are answered before authentication; a request among them that carries a usable key is still counted and carries the \`RateLimit-*\` fields (the answer stays 404 or 405, also past the limit), while an absent or refused key changes nothing and is not counted as a failed authentication. \`RateLimit-*\` fields are absent only from 401 answers, 429 \`too_many_failed_authentications\` and such 404 and 405 answers without a usable key; 403 \`partner_suspended\`, 413 and 415 carry them.
- Every successful \`GET\` carries a weak \`ETag\` (lists as the contract says, and single resources, this description and its changelog alike) and answers 304 to a matching \`If-None-Match\`.
- This description, its changelog and the page rendering it at \`/docs\` need no key.`;
}
