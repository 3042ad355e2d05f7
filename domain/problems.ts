import { CONFIRMATION_WINDOW_SECONDS } from './owner-connect.ts';

/**
 * Every refusal the service gives, in one table. `type` is `{problem_base}/<slug>`; titles follow
 * Accept-Language (English fallback); `code`, `status` and `type` never change with the language.
 */
export const LANGUAGES = ['en', 'ro'] as const;
export type Language = (typeof LANGUAGES)[number];

interface ProblemDefinition {
  status: number;
  title: Record<Language, string>;
  /** One or two sentences for the page served at the `type` address. */
  description: string;
}

export const PROBLEMS = {
  invalid_parameters: {
    status: 400,
    title: { en: 'Invalid parameters', ro: 'Parametri invalizi' },
    description:
      'One or more parameters, headers or body fields break a rule. `errors` lists one entry per failed rule with its `code` and the `parameter`, `header` or `pointer` it concerns.',
  },
  invalid_cursor: {
    status: 400,
    title: { en: 'Invalid cursor', ro: 'Cursor invalid' },
    description: 'The cursor is malformed, was altered, or belongs to another query. Start again from the first page.',
  },
  window_beyond_horizon: {
    status: 400,
    title: { en: 'Window beyond the availability horizon', ro: 'Interval dincolo de orizontul de disponibilitate' },
    description: "The requested nights reach past the property's `horizon_end`, which the answer names.",
  },
  invalid_owner_connect_token: {
    status: 400,
    title: { en: 'Invalid owner-connect token', ro: 'Token de conectare a proprietarului invalid' },
    description:
      'The token failed verification: not a compact JWS, a header other than `alg` ES256 and `typ` owner-connect+jwt, an unknown `kid`, a bad signature, or an `iss`, `aud`, `sub` or `iat` that does not match this service, the calling channel and the owner in the path. Nothing was written.',
  },
  missing_api_key: {
    status: 401,
    title: { en: 'Missing API key', ro: 'Cheie API lipsă' },
    description: 'Send the key on every request as `Authorization: Bearer <API_KEY>`.',
  },
  invalid_api_key: {
    status: 401,
    title: { en: 'Invalid API key', ro: 'Cheie API invalidă' },
    description: 'The key is malformed or unknown. Both cases are answered identically.',
  },
  api_key_wrong_environment: {
    status: 401,
    title: { en: 'API key of the other environment', ro: 'Cheie API a celuilalt mediu' },
    description:
      'A sandbox key (`svc_test_`) was sent to production, or a production key (`svc_live_`) to the sandbox.',
  },
  api_key_expired: {
    status: 401,
    title: { en: 'API key expired', ro: 'Cheie API expirată' },
    description: "The key passed its `expires_at`. Use the channel's other key or ask for a new one.",
  },
  api_key_revoked: {
    status: 401,
    title: { en: 'API key revoked', ro: 'Cheie API revocată' },
    description: 'The key was revoked and is never accepted again.',
  },
  platform_token_invalid: {
    status: 401,
    title: { en: 'Invalid platform token', ro: 'Token de platformă invalid' },
    description:
      "The platform write interface (`/internal/v1`) takes only the platform's own token as `Authorization: Bearer <PLATFORM_TOKEN>`; channel keys are refused there.",
  },
  insufficient_scope: {
    status: 403,
    title: { en: 'Insufficient scope', ro: 'Drepturi insuficiente' },
    description: 'The key lacks a scope the operation needs; `required_scopes` names the missing ones.',
  },
  partner_suspended: {
    status: 403,
    title: { en: 'Channel suspended', ro: 'Canal suspendat' },
    description: 'The channel is suspended; no operation is served until it is reinstated.',
  },
  https_required: {
    status: 403,
    title: { en: 'HTTPS required', ro: 'HTTPS obligatoriu' },
    description:
      'The interface is served over HTTPS only and never redirects. Treat a key sent over plain HTTP as compromised and roll it.',
  },
  not_found: {
    status: 404,
    title: { en: 'Not found', ro: 'Negăsit' },
    description:
      'No such resource for this channel. The answer is the same whether it never existed, was never distributed to the channel, belongs to another channel or the id is malformed.',
  },
  method_not_allowed: {
    status: 405,
    title: { en: 'Method not allowed', ro: 'Metodă nepermisă' },
    description: 'The path exists but not with this method; `Allow` lists the methods it takes.',
  },
  resource_in_use: {
    status: 409,
    title: { en: 'Resource in use', ro: 'Resursă în uz' },
    description:
      'The record is still named by others (a location by its properties, an owner by its locations or properties). Delete or move those first.',
  },
  owner_connect_token_used: {
    status: 409,
    title: { en: 'Owner-connect token already used', ro: 'Token de conectare deja folosit' },
    description:
      'The token confirmed a connection that was since removed or replaced, or its confirmation window closed after it was confirmed. A token is single use: the host starts again.',
  },
  owner_not_distributed: {
    status: 409,
    title: { en: 'Owner not distributed to the channel', ro: 'Proprietar nedistribuit canalului' },
    description:
      'No property of the owner is distributed to the channel now, so it cannot be connected to an account there.',
  },
  channel_suspended: {
    status: 409,
    title: { en: 'Channel suspended', ro: 'Canal suspendat' },
    description:
      'The channel is suspended, so no owner can be connected to it until it is reinstated: it could not confirm the connection meanwhile.',
  },
  owner_connect_not_configured: {
    status: 409,
    title: {
      en: 'Owner connect not configured for the channel',
      ro: 'Conectarea proprietarilor nu este configurată pentru canal',
    },
    description: 'The channel registered no owner-connect redirect URL in this environment.',
  },
  installation_exists: {
    status: 409,
    title: { en: 'App already installed', ro: 'Aplicație deja instalată' },
    description:
      'The organization already has an installation of this app. Change its status instead of installing it again.',
  },
  webhook_endpoint_exists: {
    status: 409,
    title: { en: 'Webhook endpoint already exists', ro: 'Endpoint webhook existent' },
    description: 'The channel already has an endpoint with this URL.',
  },
  webhook_endpoint_limit_reached: {
    status: 409,
    title: { en: 'Webhook endpoint limit reached', ro: 'Limita de endpointuri webhook atinsă' },
    description: 'A channel holds at most 5 webhook endpoints. Delete one first.',
  },
  webhooks_suspended_by_platform: {
    status: 409,
    title: { en: 'Webhooks suspended by the platform', ro: 'Webhook-uri suspendate de platformă' },
    description: "The service's operators suspended webhooks for this channel.",
  },
  webhook_endpoint_still_failing: {
    status: 409,
    title: { en: 'Webhook endpoint still failing', ro: 'Endpointul webhook încă eșuează' },
    description: 'The signed ping sent before re-enabling the endpoint did not get a 2xx answer, so it stays inactive.',
  },
  certification_not_possible: {
    status: 409,
    title: { en: 'Certification run not possible now', ro: 'Rularea de certificare nu este posibilă acum' },
    description:
      'A certification run needs an active webhook endpoint subscribed to every event type (`*`), and runs one at a time per channel: `detail` says which is missing, or which run is still running.',
  },
  sync_window_expired: {
    status: 410,
    title: { en: 'Sync window expired', ro: 'Fereastra de sincronizare a expirat' },
    description: '`updated_since` is older than the 35-day retention window. Resync from scratch without it.',
  },
  event_cursor_expired: {
    status: 410,
    title: { en: 'Event cursor expired', ro: 'Cursorul de evenimente a expirat' },
    description:
      "The event cursor points before the 35-day retention window, or to a position the log no longer holds (the service's data was restored from a backup taken before it). Resync and read events from now on.",
  },
  owner_connect_token_expired: {
    status: 410,
    title: { en: 'Owner-connect token expired', ro: 'Token de conectare expirat' },
    description: `The token was not confirmed within ${CONFIRMATION_WINDOW_SECONDS} seconds of its \`iat\`. The host starts again.`,
  },
  payload_too_large: {
    status: 413,
    title: { en: 'Request body too large', ro: 'Corpul cererii este prea mare' },
    description: 'Request bodies are limited to 1 MiB.',
  },
  unsupported_media_type: {
    status: 415,
    title: { en: 'Unsupported media type', ro: 'Tip de conținut nesuportat' },
    description: 'Request bodies are JSON (`Content-Type: application/json`).',
  },
  rate_limited: {
    status: 429,
    title: { en: 'Rate limit exceeded', ro: 'Limita de cereri depășită' },
    description: 'The channel used its requests for this minute. Wait the seconds of `Retry-After`.',
  },
  too_many_failed_authentications: {
    status: 429,
    title: { en: 'Too many failed authentications', ro: 'Prea multe autentificări eșuate' },
    description: 'Too many requests from this address failed authentication. Wait the seconds of `Retry-After`.',
  },
  internal: {
    status: 500,
    title: { en: 'Internal error', ro: 'Eroare internă' },
    description: 'The service failed unexpectedly. Quote `request_id` when you report it.',
  },
  not_implemented: {
    status: 501,
    title: { en: 'Operation planned', ro: 'Operație planificată' },
    description:
      'The operation is part of the contract but not served yet; it is marked `x-svc-availability: planned` in the description.',
  },
  service_unavailable: {
    status: 503,
    title: { en: 'Service unavailable', ro: 'Serviciu indisponibil' },
    description: 'A part the service depends on is unreachable. Retry with backoff.',
  },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemCode = keyof typeof PROBLEMS;

export function problemSlug(code: ProblemCode): string {
  return code.replaceAll('_', '-');
}

export function problemBySlug(slug: string): ProblemCode | undefined {
  return (Object.keys(PROBLEMS) as ProblemCode[]).find((code) => problemSlug(code) === slug);
}

/** Picks the best supported language from an Accept-Language header (RFC 9110 q-values). */
export function negotiateLanguage(acceptLanguage: string | undefined): Language {
  return pickLanguage(acceptLanguage, LANGUAGES);
}

/** The best of `supported` for an Accept-Language header, English when none is asked for. */
export function pickLanguage<L extends string>(acceptLanguage: string | undefined, supported: readonly L[]): L | 'en' {
  if (!acceptLanguage) return 'en';
  const ranked = acceptLanguage
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { base: tag.toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q) };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  const match = ranked.find((entry) => (supported as readonly string[]).includes(entry.base));
  return (match?.base as L | undefined) ?? 'en';
}

/** One failed rule of `invalid_parameters`: exactly one of parameter, header or pointer. */
export type ParameterError = { detail: string; code: string } & (
  { parameter: string } | { header: string } | { pointer: string }
);

export interface ProblemExtras {
  detail?: string;
  errors?: ParameterError[];
  required_scopes?: string[];
  /** `any`: one of `required_scopes` is enough. Absent: every one is needed. */
  required_scopes_match?: 'any';
  horizon_end?: string;
  headers?: Record<string, string>;
}

/** Thrown anywhere below a handler; the error middleware turns it into the catalogue's answer. */
export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly extras: ProblemExtras;
  constructor(code: ProblemCode, extras: ProblemExtras = {}) {
    super(extras.detail ?? code);
    this.name = 'ProblemError';
    this.code = code;
    this.extras = extras;
  }
}
