import { Webhook } from 'standardwebhooks';

// Signing the Standard Webhooks way, as the service does: what `listen` forwards and what
// `check-receiver` sends are signed like the service's own deliveries.

/** A new secret in the service's form: `whsec_` and the base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The three headers of a delivery of `body`, signed with each of `secrets` (two during a rotation). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** An id in the service's form, `<prefix>` and a lowercase ULID: `evt_01h…`. */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  for (let rest = now, i = 0; i < 10; i++, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time;
  const random = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return prefix + time + Array.from(random, (byte) => CROCKFORD[byte % 32]).join('');
}
