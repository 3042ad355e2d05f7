import { revisionFromChangelog } from '../openapi/changelog-revision.ts';

/** Revision of the platform interface's description: the newest entry of its `CHANGELOG.md`. */
export const PLATFORM_REVISION = revisionFromChangelog(new URL('./CHANGELOG.md', import.meta.url));

export const PLATFORM_TAG_DESCRIPTIONS: Record<string, string> = {
  Platform:
    "The platform's writes and reads: the source catalogue, distribution, availability, listing reports, owner connect, installed apps and guests, VAT rates and host sessions.",
  Description: 'This machine-readable description and its changelog.',
};

export function platformInfo(base: string): string {
  return `The platform interface of the Distribution Service: the property-management platform writes the source records the channels' views are projected from (organizations, owners, locations, properties), chooses the channels each property is distributed to, writes nightly availability and prices, and reads what channels reported back. It is separate from the distribution interface, with its own token, and may be served on a listener of its own. This description is generated from the registry the service routes from.

## Authentication

Every operation except this description, its changelog and the page rendering it at \`${base}/docs\` needs the platform's token, sent as \`Authorization: Bearer <PLATFORM_TOKEN>\`. A missing or wrong token, or a channel key, is answered 401 \`platform_token_invalid\` with a \`WWW-Authenticate\` challenge (realm \`platform\`); repeated failures from one address 429 \`too_many_failed_authentications\`. The interface is served over HTTPS only; plain HTTP is refused with 403 \`https_required\` and never redirected.

## Writes

Every record is addressed by the platform's own reference (\`ref\`: 1-64 of \`A-Za-z0-9._:-\`), so a write is a \`PUT\` of the whole record: repeating it is harmless, and an identical write changes nothing (not even \`updated_at\`). A write is validated whole before anything is written: bad input is 400 \`invalid_parameters\` with one entry per failed rule and its RFC 6901 \`pointer\`, and writes nothing. A write and its re-projection of every channel's view are one transaction.

A record's \`GET\` answer can be sent back to its \`PUT\`: the fields the service sets (\`created_at\`, \`updated_at\`, a property's \`legal_status\`, a guest's \`id\`) are accepted in their shape and ignored (\`readOnly\` in the request schemas), and \`ref\` (\`property\` for a distribution) must name the path's record (rule code \`path_mismatch\`). Any other field the write does not know is refused (\`unknown_field\`).

## Problem details

Refusals are RFC 9457 problem details (\`application/problem+json\`, schema \`Problem\`), as on the distribution interface. Branch on \`code\` or \`type\`, never on \`title\`. Each operation lists, per status, the codes it can answer (also as \`x-problem-codes\`). The list of codes is open: treat an unknown code by its status.

## Versioning

This is revision ${PLATFORM_REVISION}, under \`${base}\`; \`${base}/openapi.json\` keeps one address and \`${base}/CHANGELOG.md\` records each revision. The interface only grows within v1: accept unknown fields and codes in answers (answer schemas list what this revision knows and do not forbid more).

## Decisions of this revision

- This description, its changelog and its docs page need no token, like the other interfaces' descriptions: they describe shapes and hold no data. They are served wherever \`${base}\` is, so a deployment that keeps the platform interface off the public listener (\`INTERNAL_PORT\`) keeps them off it too.
- There is no rate limit on this interface: answers carry no \`RateLimit-*\` fields.`;
}
