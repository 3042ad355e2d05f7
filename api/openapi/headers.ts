import type { JsonSchema } from './schemas.ts';

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

const integer = { type: 'integer', minimum: 0 };
const text = { type: 'string' };

/** Response headers of the interface, described once under `components.headers`. */
export const HEADERS = {
  'Request-Id': {
    description:
      'UUID of this request, on every answer; problem bodies repeat it as `request_id`. Quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
  'RateLimit-Limit': {
    description:
      "Requests allowed in the current one-minute window: the channel's `rate_limit.per_minute`. On every answer to a request carrying a usable key, refusals included (403 `partner_suspended`, 413, 415, and the 404 and 405 given before authentication); absent on 401, and on a 404 or 405 to a request without a usable key.",
    schema: integer,
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: integer },
  'RateLimit-Policy': {
    description:
      'Provisional (draft-ietf-httpapi-ratelimit-headers structured field), e.g. `"per-minute";q=600;w=60`. May change within v1; rely on the three `RateLimit-*` fields above.',
    schema: text,
  },
  RateLimit: {
    description:
      'Provisional (draft-ietf-httpapi-ratelimit-headers structured field), e.g. `"per-minute";r=599;t=42`. May change within v1.',
    schema: text,
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', required: true, schema: integer },
  'WWW-Authenticate': {
    description:
      'RFC 6750 challenge with realm `distribution`; `error="invalid_token"` for a key that was sent but refused, `error="insufficient_scope"` with the missing `scope` on 403.',
    schema: text,
  },
  ETag: {
    description:
      "Weak validator of this answer; send it back in `If-None-Match` to get 304 when nothing changed. A compressed answer's tag ends with its coding (`-zstd`, `-br`, `-gzip`); either tag of the same content matches.",
    schema: text,
  },
  'Cache-Control': {
    description:
      'How long any cache may keep this answer (`public, max-age=<seconds>`); every other answer of the interface is `no-store`.',
    required: true,
    schema: text,
  },
  Allow: { description: 'The methods the path takes.', required: true, schema: text },
  'Content-Language': {
    description: 'Language of the problem `title`, negotiated from `Accept-Language` (`en` or `ro`).',
    schema: text,
  },
  Deprecation: {
    description: 'RFC 9745: when the operation was deprecated (`@<unix seconds>`).',
    required: true,
    schema: text,
  },
  Sunset: { description: 'RFC 8594: when the operation stops being served.', required: true, schema: text },
  Link: {
    description:
      'RFC 8288 links. On a page of a cursor-paged list that has a next page: `<path?…&cursor=…>; rel="next"`, the same request with `cursor` set to the body\'s `next_cursor`, so the next page can be asked for as soon as the headers arrive (for example on a second connection while this body is still being read). On a deprecated operation: the deprecation notice (`rel="deprecation"`).',
    schema: text,
  },
} as const satisfies Record<string, HeaderObject>;

export type HeaderName = keyof typeof HEADERS;

export const RATE_LIMIT_HEADERS: HeaderName[] = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];
