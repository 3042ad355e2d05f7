import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import { currentKey, keyById, type KeyRing } from '../domain/key-ring.ts';

/**
 * Encryption at rest for secrets the service must use again (webhook signing secrets):
 * AES-256-GCM under a key derived with HKDF from a server key of the ring, a fresh 96-bit nonce
 * per value, and a full 128-bit tag (a shorter one is refused). Stored as
 * `v2.<key id>.<nonce>.<ciphertext+tag>` in base64url, sealed with the ring's newest key; the
 * `v1.<nonce>.<ciphertext+tag>` of before key ids is read as key 0. The purpose string binds each
 * key to one use, and the associated data binds each value to its row, so a ciphertext copied to
 * another row does not decrypt.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** How every value sealed with the ring's newest key starts; any other should be sealed again. */
  readonly currentPrefix: string;
}

const TAG_BYTES = 16;
const NONCE_BYTES = 12;

export function secretBox(ring: KeyRing, purpose: string): SecretBox {
  // Key objects, made once: given bytes, each cipher would import the key again (every attempt opens its secret).
  const derived = new Map(
    ring.keys.map((key) => [
      key.id,
      createSecretKey(Buffer.from(hkdfSync('sha256', key.secret, Buffer.alloc(0), `distribution/${purpose}`, 32))),
    ]),
  );
  const current = currentKey(ring).id;
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', derived.get(current)!, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v2.${current}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, context) {
      const { keyId, nonce, body } = parseSealed(sealed);
      const key = keyById(ring, keyId) && derived.get(keyId);
      if (!key) throw new Error(`secret-box: key ${keyId} is not in the ring`);
      if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new Error('secret-box: malformed value');
      // The tag length is fixed here, never taken from the value: GCM checks only as many tag
      // bytes as it is given, so a value carrying a short tag would be forgeable.
      const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        // GCM says only "unable to authenticate data": name the key, so that an operator who
        // restored a database under another SERVER_SECRET reads why.
        throw new Error(
          `secret-box: the value does not open with key ${keyId} of the ring (sealed under another server secret, or altered)`,
        );
      }
    },
    currentPrefix: `v2.${current}.`,
  };
}

function parseSealed(sealed: string): { keyId: number; nonce: Buffer; body: Buffer } {
  const parts = sealed.split('.');
  if (parts[0] === 'v1' && parts.length === 3)
    return { keyId: 0, nonce: Buffer.from(parts[1]!, 'base64url'), body: Buffer.from(parts[2]!, 'base64url') };
  if (parts[0] === 'v2' && parts.length === 4 && /^(?:0|[1-9]\d{0,8})$/.test(parts[1]!)) {
    return {
      keyId: Number(parts[1]),
      nonce: Buffer.from(parts[2]!, 'base64url'),
      body: Buffer.from(parts[3]!, 'base64url'),
    };
  }
  throw new Error('secret-box: unknown format');
}

export const webhookSecretBox = (ring: KeyRing) => secretBox(ring, 'webhook-secrets');

/** Associated data binding a sealed webhook secret to its endpoint. */
export function webhookSecretContext(endpointId: string): string {
  return `webhook_endpoint:${endpointId}`;
}

export const ownerConnectKeyBox = (ring: KeyRing) => secretBox(ring, 'owner-connect-keys');

/** Associated data binding a sealed owner-connect private key to its kid. */
export function ownerConnectKeyContext(kid: string): string {
  return `owner_connect_key:${kid}`;
}
