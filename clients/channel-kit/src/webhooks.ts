import { Webhook, WebhookVerificationError as LibraryError } from 'standardwebhooks';
import { EVENT_TYPES } from './generated/event-types.ts';
import type { webhooks } from './generated/schema.ts';

type BodyOf<Entry> = Entry extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/**
 * Every body a webhook endpoint receives, from the description's `webhooks` section: a union told
 * apart by `type` (`switch (event.type)` narrows `data`). v1 adds event types; a receiver answers
 * 2xx to one it does not know and ignores it, so keep a `default` branch.
 */
export type WebhookEvent = { [Type in keyof webhooks]: BodyOf<webhooks[Type]> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];
export type WebhookEventOf<Type extends WebhookEventType> = Extract<WebhookEvent, { type: Type }>;

/**
 * The event types this revision of the kit knows, in the description's order: generated from the
 * description with the types above (`npm run generate:channel-kit`), so a type it adds is here by
 * the same command. Typed so that a name the generated types do not have fails the build.
 */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = EVENT_TYPES;
const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function isKnownWebhookEvent(event: { type: string }): event is WebhookEvent {
  return KNOWN.has(event.type);
}

/** Why a delivery was refused: answer it with a 4xx (the service retries it) and do nothing else. */
export type WebhookRefusal =
  /** `webhook-id`, `webhook-timestamp` or `webhook-signature` absent. */
  | 'missing_header'
  /** `webhook-timestamp` not whole Unix seconds, or more than 5 minutes from this machine's clock. */
  | 'timestamp'
  /** No `v1` signature matches any of the secrets. */
  | 'signature'
  /** Signed, but not a JSON object with an `id`, a `type` and `data`. */
  | 'payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookRefusal;
  constructor(reason: WebhookRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const HEADER_NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function standardHeaders(headers: WebhookHeaders): Record<(typeof HEADER_NAMES)[number], string> {
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
    const value = key === undefined ? undefined : headers[key];
    return Array.isArray(value) ? value.join(' ') : value;
  };
  const out = {} as Record<(typeof HEADER_NAMES)[number], string>;
  for (const name of HEADER_NAMES) {
    const value = read(name);
    if (!value) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
    out[name] = value;
  }
  return out;
}

/**
 * Verifies a delivery the Standard Webhooks way (the `standardwebhooks` library) and returns its
 * event: `webhook-timestamp` within 5 minutes of this machine's clock, and a `v1` signature of
 * `<webhook-id>.<webhook-timestamp>.<raw body>` made with one of `secrets`. Give the current
 * secret, and during a rotation the previous one too (at most two): the service signs with both
 * for 24 hours. Pass the raw body exactly as received, before any JSON parsing.
 * Throws a `WebhookVerificationError` naming the failed rule.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
): WebhookEvent {
  const keys = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (keys.length === 0 || keys.length > 2)
    throw new RangeError('verifyWebhook: give one secret, or two during a rotation');
  const verifiers = keys.map((secret) => {
    if (!secret.startsWith('whsec_')) throw new TypeError('verifyWebhook: a secret starts with whsec_');
    return new Webhook(secret);
  });
  const signed = standardHeaders(headers);
  if (!/^\d{1,15}$/.test(signed['webhook-timestamp']))
    throw new WebhookVerificationError('timestamp', 'webhook-timestamp is not whole Unix seconds');
  // The library signs a string (or a Node Buffer); bytes are the UTF-8 text the service sent.
  const body: string =
    typeof rawBody === 'string' || isNodeBuffer(rawBody)
      ? (rawBody as string)
      : new TextDecoder('utf-8').decode(rawBody);
  let failure: WebhookVerificationError | undefined;
  for (const verifier of verifiers) {
    let parsed: unknown;
    try {
      parsed = verifier.verify(body, signed);
    } catch (error) {
      if (error instanceof SyntaxError) throw new WebhookVerificationError('payload', 'the body is not JSON');
      if (!(error instanceof LibraryError)) throw error;
      const reason = /timestamp/i.test(error.message) ? 'timestamp' : 'signature';
      failure = new WebhookVerificationError(
        reason,
        reason === 'timestamp' ? 'webhook-timestamp is more than 5 minutes from this clock' : 'no signature matches',
      );
      if (reason === 'timestamp') throw failure;
      continue;
    }
    if (!isEventShape(parsed))
      throw new WebhookVerificationError('payload', 'the body is not an event: an object with id, type and data');
    return parsed as WebhookEvent;
  }
  throw failure!;
}

function isNodeBuffer(value: Uint8Array): boolean {
  return value.constructor.name === 'Buffer';
}

function isEventShape(value: unknown): value is { id: string; type: string; data: object } {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  return (
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    typeof event.data === 'object' &&
    event.data !== null
  );
}
