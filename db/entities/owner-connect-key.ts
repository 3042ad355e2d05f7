import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An owner-connect token signing key (P-256, ES256). Its life is told by its instants (see
 * domain/owner-connect-keys.ts): published, active (signing), retired (still published 24 h),
 * withdrawn. The private JWK is sealed at rest like the webhook secrets (infra/secret-box.ts,
 * bound to the kid) and destroyed once the key leaves the set; the row stays for audit.
 */
export const OwnerConnectKeySchema = defineEntity({
  name: 'OwnerConnectKey',
  tableName: 'owner_connect_key',
  properties: {
    /** RFC 7638 thumbprint of the public key (SHA-256, base64url): the JWS `kid`. */
    kid: p.string().length(64).primary(),
    /** The public JWK as served: `kty`, `crv`, `x`, `y` (the set adds `kid`, `alg`, `use`). */
    publicJwk: p.text(),
    /** The sealed private JWK; null once destroyed. */
    privateJwk: p.text().nullable(),
    createdAt: p.datetime(),
    publishedAt: p.datetime(),
    activatedAt: p.datetime().nullable(),
    retiredAt: p.datetime().nullable(),
    unpublishedAt: p.datetime().nullable(),
    /** The key signed at once, as the deployment's first key or the replacement of a compromised one. */
    signedAtOnce: p.enum(['bootstrap', 'emergency'] as const).nullable(),
    compromisedAt: p.datetime().nullable(),
    privateDestroyedAt: p.datetime().nullable(),
  },
});

export type OwnerConnectKey = InferEntity<typeof OwnerConnectKeySchema>;
