import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets the service must use again (webhook signing secrets):
 * AES-256-GCM under a key derived from SERVER_SECRET with HKDF, a fresh 96-bit nonce per value.
 * Stored as `v1.<nonce>.<ciphertext+tag>` in base64url. The purpose string binds each key to
 * one use, and the associated data binds each value to its row, so a ciphertext copied to
 * another row does not decrypt.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function secretBox(serverSecret: Uint8Array, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), `distribution/${purpose}`, 32));
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v1.${nonce.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, nonce, body] = sealed.split('.');
      if (version !== 'v1' || !nonce || !body) throw new Error('secret-box: unknown format');
      const bytes = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}

export const webhookSecretBox = (serverSecret: Uint8Array) => secretBox(serverSecret, 'webhook-secrets');

/** Associated data binding a sealed webhook secret to its endpoint. */
export function webhookSecretContext(endpointId: string): string {
  return `webhook_endpoint:${endpointId}`;
}
