// Standard Webhooks (https://www.standardwebhooks.com) signing. The HMAC is Web Crypto's unless
// the caller hands its own (the worker's sender hands Node's synchronous one: infra/webhook-sender.ts),
// so the rule stays free of Node built-ins.

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;
const SECRET_BYTES = 32;

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export type SignInput = { id: string; timestamp: number; body: string; secrets: readonly string[] };

/** HMAC-SHA256 of `content` under the raw `key`. */
export type HmacSha256 = (
  key: Uint8Array<ArrayBuffer>,
  content: Uint8Array<ArrayBuffer>,
) => Uint8Array | Promise<Uint8Array>;

const webCryptoHmac: HmacSha256 = async (key, content) => {
  const imported = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, content));
};

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The `webhook-signature` value: one `v1,<base64>` per secret, in the order given. */
export async function signWebhook(input: SignInput, hmac: HmacSha256 = webCryptoHmac): Promise<string> {
  if (input.secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new Error('webhook timestamp must be whole Unix seconds');
  }
  const content = signedContent(input.id, input.timestamp, input.body);
  const signatures = await Promise.all(
    input.secrets.map(async (secret) => `v1,${toBase64(await hmac(secretKey(secret), content))}`),
  );
  return signatures.join(' ');
}

export async function webhookHeaders(input: SignInput, hmac?: HmacSha256): Promise<WebhookHeaders> {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': await signWebhook(input, hmac),
  };
}

/**
 * The receiver's side, for the service's own tests and test receivers: timestamp within tolerance
 * and any `v1` entry matching. `crypto.subtle.verify` compares in constant time.
 */
export async function verifyWebhook(input: {
  headers: WebhookHeaders;
  body: string;
  secret: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}): Promise<boolean> {
  const { headers } = input;
  if (!/^[0-9]{1,15}$/.test(headers['webhook-timestamp'])) return false;
  const timestamp = Number(headers['webhook-timestamp']);
  if (Math.abs(input.nowSeconds - timestamp) > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const key = await crypto.subtle.importKey('raw', secretKey(input.secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const content = signedContent(headers['webhook-id'], timestamp, input.body);
  for (const entry of headers['webhook-signature'].split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) continue;
    const bytes = fromBase64(signature);
    if (bytes !== null && (await crypto.subtle.verify('HMAC', key, bytes, content))) return true;
  }
  return false;
}

function signedContent(id: string, timestamp: number, body: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${id}.${timestamp}.${body}`);
}

/** The raw key of a `whsec_` secret. */
function secretKey(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('webhook secret must start with whsec_');
  const keyBytes = fromBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  if (keyBytes === null || keyBytes.length === 0) throw new Error('webhook secret is not valid base64');
  return keyBytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}
