import { z } from 'zod';
import {
  HOUR_MS,
  KEY_SET_MAX_AGE_SECONDS,
  PUBLICATION_LEAD_MS,
  RETIRED_OVERLAP_MS,
} from '../../domain/owner-connect-keys.ts';
import { publishedKeySet } from '../../services/owner-connect/signing-keys.ts';
import { defineOperation } from '../operations.ts';

const PublicKey = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: z.string().meta({ description: 'X coordinate, base64url (RFC 7518 §6.2.1.2).' }),
    y: z.string().meta({ description: 'Y coordinate, base64url.' }),
    kid: z.string().meta({
      description:
        'The key id a token names in its `kid` header: the RFC 7638 SHA-256 thumbprint of the key, base64url.',
    }),
    alg: z.literal('ES256'),
    use: z.literal('sig'),
  })
  .strict()
  .meta({ id: 'OwnerConnectPublicKey', description: 'A public key; the set never holds a private member.' });

export const OwnerConnectKeySet = z
  .object({ keys: z.array(PublicKey) })
  .strict()
  .meta({
    id: 'OwnerConnectKeySet',
    description: 'JWK Set (RFC 7517 §5) of the keys that sign owner-connect tokens, oldest publication first.',
  });

export const getOwnerConnectKeys = defineOperation({
  operationId: 'getOwnerConnectKeys',
  method: 'get',
  path: '/owner-connect/keys',
  summary: 'JWKS of the owner-connect token signing keys',
  description: [
    `The public keys that verify owner-connect tokens: the key that signs now, the next key (published at least ${PUBLICATION_LEAD_MS / HOUR_MS} hours before it signs) and a retired key for ${RETIRED_OVERLAP_MS / HOUR_MS} hours after it stopped signing.`,
    '',
    `**No key needed**: the set holds public keys only, like any JWKS at a well-known address, so a JOSE library can fetch it with no headers (e.g. jose's \`createRemoteJWKSet\`); it is not rate limited per channel. It is the same for every channel of this environment (sandbox and production have their own keys).`,
    '',
    `**Caching**: answered with \`Cache-Control: public, max-age=${KEY_SET_MAX_AGE_SECONDS}\`, well under the ${PUBLICATION_LEAD_MS / HOUR_MS} hours a new key is published before it signs, so a channel that caches the set by that header sees every key before its first token; and with a weak \`ETag\` (\`If-None-Match\` answers 304). On a token whose \`kid\` is not in the cached set, fetch the set again (the contract's rule): after a compromised key is withdrawn the service signs with a new key at once.`,
  ].join('\n'),
  tags: ['Owner connect'],
  scopes: null,
  publicCache: true,
  responses: { 200: { description: 'The key set', schema: OwnerConnectKeySet } },
  problems: [],
  handler: async ({ deps }) => {
    const { keys, maxAgeSeconds } = await publishedKeySet(deps, deps.clock.now());
    // jose types every JWK member as optional; a published key is the public half of a P-256 pair
    // generated for ES256, with the members `publicJwkOf` writes.
    return {
      body: { keys: keys as z.output<typeof PublicKey>[] },
      headers: { 'Cache-Control': `public, max-age=${maxAgeSeconds}` },
    };
  },
});
