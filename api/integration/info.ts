import { INTEGRATION_RATE_LIMIT_PER_MINUTE } from '../../domain/integration-tokens.ts';
import { GUEST_LIST_LIMIT } from '../../services/integration.ts';
import { revisionFromChangelog } from '../openapi/changelog-revision.ts';

/** Revision of the integration interface's description: the newest entry of its `CHANGELOG.md`. */
export const INTEGRATION_REVISION = revisionFromChangelog(new URL('./CHANGELOG.md', import.meta.url));

export function integrationInfo(base: string): string {
  return `The integration interface of the Distribution Service: an app a property's organization installed (a CRM, a door-lock service, an accounting tool) reads that organization's data with its integration token. It is separate from the distribution interface, with its own tokens, scopes, error shapes and rate limit. This description is generated from the registry the service routes from.

## Authentication

Send the installation's token as \`Authorization: Bearer <INTEGRATION_TOKEN>\`. The organization issues it when it installs the app, with the scopes the app asked for or a subset; it is shown once, and issuing a new one revokes the previous at once. Tokens start \`svci_live_\` (production) or \`svci_test_\` (sandbox), are 64 characters and end in a CRC-32 checksum, so a mistyped token is refused before any lookup. Every request reads only the installing organization's data.

| Answer | When |
| - | - |
| 401 \`missing_token\` | no bearer token |
| 401 \`invalid_token\` | malformed or unknown; also a channel's API key, the platform's token or a user's sign-in token, none of which is an integration token |
| 401 \`token_wrong_environment\` | a sandbox token sent to production or the other way round |
| 401 \`token_revoked\` | replaced by a newer token, or revoked by an operator |
| 403 \`installation_disabled\`, \`installation_error\` | the installation is disabled or in error |
| 403 \`insufficient_scope\` | the token lacks the operation's scope (\`errors.required_scopes\`) |

Checks run in that order: token, installation, rate limit, scope, parameters. Repeated 401s from one address become 429 \`too_many_failed_authentications\`.

## Errors

Errors are \`application/json\` in one of two shapes, by status:

- **429** (\`rate_limited\`, \`too_many_failed_authentications\`): \`{error, message, retry_after}\`, where \`error\` is the code and \`retry_after\` the integer seconds of the \`Retry-After\` header (schema \`RetryLater\`).
- **Every other refusal** (400, 401, 403, 404, 405, 500, 503): \`{message, code, errors}\`, where \`errors\` is an object: per parameter the list of what is wrong with it for \`invalid_parameters\`, \`required_scopes\` for \`insufficient_scope\`, empty otherwise (schema \`IntegrationError\`).

Branch on \`code\` (or \`error\`) and the status, never on \`message\`. The list of codes is open. A request over plain HTTP is refused for the whole deployment before it reaches this interface (403 \`https_required\`, an RFC 9457 problem) and never redirected.

## Rate limit

${INTEGRATION_RATE_LIMIT_PER_MINUTE} requests per installation per one-minute window, counted once the token and installation are accepted (refusals after that count too). Answers from then on carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`, and the provisional \`RateLimit-Policy\` and \`RateLimit\`; over the limit the answer is 429 \`rate_limited\` with \`Retry-After\`.

## Guests

\`GET /guests\` answers at most ${GUEST_LIST_LIMIT} guests, newest first. \`full_name\` is the name as written, given name first (\`Ana Popescu\`); \`name\` is the sorting form, family name first (\`Popescu, Ana\`). A guest the platform removed is gone from the next answer. Guests are personal data: answers carry \`Cache-Control: no-store\`.

## Versioning

This is revision ${INTEGRATION_REVISION}, under \`${base}\`; \`${base}/openapi.json\` keeps one address and \`${base}/CHANGELOG.md\` records each revision. The interface only grows within v1: accept unknown fields, codes and scopes.`;
}
