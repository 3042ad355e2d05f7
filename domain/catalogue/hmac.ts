// Web Crypto only: this module is shared by code that runs in workflows, where Node's crypto
// and Buffer are not available.

const encoder = new TextEncoder();

/** Imported once per secret (secrets are never changed in place): every list page signs and checks a cursor. */
const imported = new WeakMap<Uint8Array, ReturnType<typeof crypto.subtle.importKey>>();

/**
 * Node's own HMAC where there is a Node (the API and its activities): synchronous, so a list page
 * does not wait for Web Crypto's round trip through the thread pool twice (its cursor checked and
 * signed). Looked up at run time, not imported, so the workflow bundle stays free of it.
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as
  | {
      createHmac(algorithm: string, key: object): { update(data: string): { digest(): Uint8Array } };
      createSecretKey(key: Uint8Array): object;
    }
  | undefined;

/** Node's key objects, made once per secret: a key given as bytes is copied and checked on every HMAC. */
const keyObjects = new WeakMap<Uint8Array, object>();

export async function hmacSha256(secret: Uint8Array, message: string): Promise<Uint8Array> {
  if (nodeCrypto) {
    let keyObject = keyObjects.get(secret);
    if (!keyObject) {
      keyObject = nodeCrypto.createSecretKey(secret);
      keyObjects.set(secret, keyObject);
    }
    return new Uint8Array(nodeCrypto.createHmac('sha256', keyObject).update(message).digest());
  }
  let key = imported.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    imported.set(secret, key);
  }
  return new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(message)));
}

export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Strict: only the unpadded base64url alphabet is accepted; anything else gives null. */
export function base64UrlDecode(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  // Reject non-canonical encodings (stray low bits in the last character), so one payload has
  // exactly one textual form.
  return base64UrlEncode(bytes) === text ? bytes : null;
}

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export function utf8Encode(text: string): Uint8Array {
  return encoder.encode(text);
}

export function utf8Decode(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
