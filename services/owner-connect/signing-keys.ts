import type { EntityManager } from '@mikro-orm/postgresql';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import {
  activateKey,
  activeKey,
  allKeys,
  insertKey,
  lockKeySet,
  publishedKeys,
  type SigningKey,
} from '../../db/owner-connect-keys.ts';
import { writeTransaction } from '../../db/sql.ts';
import { isPublishedAt, KEY_SET_MAX_AGE_SECONDS, keyState, type KeyTimes } from '../../domain/owner-connect-keys.ts';
import { OWNER_CONNECT_ALG } from '../../domain/owner-connect.ts';
import { ownerConnectKeyBox, ownerConnectKeyContext } from '../../infra/secret-box.ts';
import type { ServiceDeps } from '../deps.ts';

type Deps = Pick<ServiceDeps, 'orm' | 'secrets'>;

/** A key's instants as the domain rules read them. */
export function keyTimes(key: SigningKey): KeyTimes {
  return {
    publishedAt: key.publishedAt,
    activatedAt: key.activatedAt,
    retiredAt: key.retiredAt,
    unpublishedAt: key.unpublishedAt,
  };
}

/**
 * A new P-256 key pair, published at `at`: the public JWK as served (`kty`, `crv`, `x`, `y`), the
 * private JWK sealed under the server key ring and bound to the kid (its RFC 7638 thumbprint).
 */
export async function createKey(
  tx: EntityManager,
  deps: Deps,
  at: Date,
  activation: { activatedAt: Date; signedAtOnce: 'bootstrap' | 'emergency' } | null,
): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair(OWNER_CONNECT_ALG, { extractable: true });
  const pub = await exportJWK(publicKey);
  const publicJwk = { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y };
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const sealed = ownerConnectKeyBox(deps.secrets.ring).seal(
    JSON.stringify(await exportJWK(privateKey)),
    ownerConnectKeyContext(kid),
  );
  await insertKey(tx, {
    kid,
    publicJwk: JSON.stringify(publicJwk),
    sealedPrivateJwk: sealed,
    at,
    activatedAt: activation?.activatedAt ?? null,
    signedAtOnce: activation?.signedAtOnce ?? null,
  });
  return kid;
}

/**
 * Bootstrap (no key signs at `at`, i.e. a deployment's first start): the oldest pending key, or a
 * new one, signs at once. Safe because no channel can hold a set naming another signer, and a
 * channel refetches the set on an unknown kid. Call under `lockKeySet`. Answers the kid, or
 * undefined when a key already signs.
 */
export async function bootstrapKey(tx: EntityManager, deps: Deps, at: Date): Promise<string | undefined> {
  if (await activeKey(tx, at)) return undefined;
  const pending = (await allKeys(tx)).find(
    (key) => key.activatedAt === null && key.unpublishedAt === null && key.publishedAt <= at,
  );
  if (pending) {
    await activateKey(tx, pending.kid, at, 'bootstrap');
    return pending.kid;
  }
  return createKey(tx, deps, at, { activatedAt: at, signedAtOnce: 'bootstrap' });
}

async function privateKeyOf(deps: Deps, key: SigningKey): Promise<CryptoKey> {
  if (key.privateJwk === null) throw new Error(`owner-connect key ${key.kid}: its private part is destroyed`);
  const jwk = JSON.parse(
    ownerConnectKeyBox(deps.secrets.ring).open(key.privateJwk, ownerConnectKeyContext(key.kid)),
  ) as JWK;
  return (await importJWK(jwk, OWNER_CONNECT_ALG)) as CryptoKey;
}

/**
 * The key that signs a token minted at `at`: the one active key, which has been published at least
 * 24 hours before it started signing (the rotation switches to no other), except a key that signs
 * at once under the documented bootstrap (first key of a deployment) or after a compromise.
 * Creates the first key of a deployment when none signs.
 */
export async function signingKeyForToken(deps: Deps, at: Date): Promise<{ kid: string; privateKey: CryptoKey }> {
  let key = await activeKey(deps.orm.em.fork(), at);
  if (!key) {
    key = await writeTransaction(deps.orm.em, async (tx) => {
      await lockKeySet(tx);
      await bootstrapKey(tx, deps, at);
      return activeKey(tx, at);
    });
  }
  if (!key) throw new Error('owner-connect: no signing key after bootstrap');
  return { kid: key.kid, privateKey: await privateKeyOf(deps, key) };
}

/** A public key that verifies tokens at `at` (published and not past its 24 h after retirement), or undefined. */
export async function verificationKey(
  deps: Pick<ServiceDeps, 'stores'>,
  kid: string,
  at: Date,
): Promise<CryptoKey | undefined> {
  const key = await deps.stores.ownerConnections.keyByKid(kid);
  if (!key || !isPublishedAt(keyTimes(key), at)) return undefined;
  return (await importJWK(JSON.parse(key.publicJwk) as JWK, OWNER_CONNECT_ALG)) as CryptoKey;
}

/** A key as the set serves it: public members only. */
export function publicJwkOf(key: Pick<SigningKey, 'kid' | 'publicJwk'>): JWK {
  const { kty, crv, x, y } = JSON.parse(key.publicJwk) as JWK;
  return { kty, crv, x, y, kid: key.kid, alg: OWNER_CONNECT_ALG, use: 'sig' };
}

/** The JWKS served by GET /owner-connect/keys and the Cache-Control max-age to send with it. */
export async function publishedKeySet(
  deps: Pick<ServiceDeps, 'orm'>,
  at: Date,
): Promise<{ keys: JWK[]; maxAgeSeconds: number }> {
  const keys = await publishedKeys(deps.orm.em.fork(), at);
  return { keys: keys.map(publicJwkOf), maxAgeSeconds: KEY_SET_MAX_AGE_SECONDS };
}

/** For the operator: every key with its state and instants, never a private part. */
export async function listSigningKeys(deps: Pick<ServiceDeps, 'orm'>, at: Date) {
  const keys = await allKeys(deps.orm.em.fork());
  return keys.map((key) => ({
    kid: key.kid,
    state: keyState(keyTimes(key), at),
    published_at: key.publishedAt.toISOString(),
    activated_at: iso(key.activatedAt),
    retired_at: iso(key.retiredAt),
    unpublished_at: iso(key.unpublishedAt),
    signed_at_once: key.signedAtOnce,
    compromised_at: iso(key.compromisedAt),
    private_destroyed_at: iso(key.privateDestroyedAt),
  }));
}

/** The operator's listing writes instants with milliseconds (`toISOString`), not the contract's whole seconds. */
function iso(instant: Date | null): string | null {
  return instant === null ? null : instant.toISOString();
}
