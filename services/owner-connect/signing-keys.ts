import type { EntityManager } from '@mikro-orm/postgresql';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import {
  activateKey,
  activeKey,
  allKeys,
  insertKey,
  keyByKid,
  lockKeySet,
  publishedKeys,
  type OwnerConnectKeyRow,
} from '../../db/owner-connect-keys.ts';
import { writeTransaction } from '../../db/sql.ts';
import { isPublishedAt, KEY_SET_MAX_AGE_SECONDS, keyState, type KeyTimes } from '../../domain/owner-connect-keys.ts';
import { OWNER_CONNECT_ALG } from '../../domain/owner-connect.ts';
import { ownerConnectKeyBox, ownerConnectKeyContext } from '../../infra/secret-box.ts';
import type { ServiceDeps } from '../deps.ts';

type Deps = Pick<ServiceDeps, 'orm' | 'secrets'>;

/** A key's instants as the domain rules read them. */
export function keyTimes(row: OwnerConnectKeyRow): KeyTimes {
  const instant = (text: string | null) => (text === null ? null : new Date(text));
  return {
    publishedAt: new Date(row.published_at),
    activatedAt: instant(row.activated_at),
    retiredAt: instant(row.retired_at),
    unpublishedAt: instant(row.unpublished_at),
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
    (row) => row.activated_at === null && row.unpublished_at === null && new Date(row.published_at) <= at,
  );
  if (pending) {
    await activateKey(tx, pending.kid, at, 'bootstrap');
    return pending.kid;
  }
  return createKey(tx, deps, at, { activatedAt: at, signedAtOnce: 'bootstrap' });
}

async function privateKeyOf(deps: Deps, row: OwnerConnectKeyRow): Promise<CryptoKey> {
  if (row.private_jwk === null) throw new Error(`owner-connect key ${row.kid}: its private part is destroyed`);
  const jwk = JSON.parse(
    ownerConnectKeyBox(deps.secrets.ring).open(row.private_jwk, ownerConnectKeyContext(row.kid)),
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
  let row = await activeKey(deps.orm.em.fork(), at);
  if (!row) {
    row = await writeTransaction(deps.orm.em, async (tx) => {
      await lockKeySet(tx);
      await bootstrapKey(tx, deps, at);
      return activeKey(tx, at);
    });
  }
  if (!row) throw new Error('owner-connect: no signing key after bootstrap');
  return { kid: row.kid, privateKey: await privateKeyOf(deps, row) };
}

/** A public key that verifies tokens at `at` (published and not past its 24 h after retirement), or undefined. */
export async function verificationKey(
  deps: Pick<ServiceDeps, 'orm'>,
  kid: string,
  at: Date,
): Promise<CryptoKey | undefined> {
  const row = await keyByKid(deps.orm.em.fork(), kid);
  if (!row || !isPublishedAt(keyTimes(row), at)) return undefined;
  return (await importJWK(JSON.parse(row.public_jwk) as JWK, OWNER_CONNECT_ALG)) as CryptoKey;
}

/** A key as the set serves it: public members only. */
export function publicJwkOf(row: Pick<OwnerConnectKeyRow, 'kid' | 'public_jwk'>): JWK {
  const { kty, crv, x, y } = JSON.parse(row.public_jwk) as JWK;
  return { kty, crv, x, y, kid: row.kid, alg: OWNER_CONNECT_ALG, use: 'sig' };
}

/** The JWKS served by GET /owner-connect/keys and the Cache-Control max-age to send with it. */
export async function publishedKeySet(
  deps: Pick<ServiceDeps, 'orm'>,
  at: Date,
): Promise<{ keys: JWK[]; maxAgeSeconds: number }> {
  const rows = await publishedKeys(deps.orm.em.fork(), at);
  return { keys: rows.map(publicJwkOf), maxAgeSeconds: KEY_SET_MAX_AGE_SECONDS };
}

/** For the operator: every key with its state and instants, never a private part. */
export async function listSigningKeys(deps: Pick<ServiceDeps, 'orm'>, at: Date) {
  const rows = await allKeys(deps.orm.em.fork());
  return rows.map((row) => ({
    kid: row.kid,
    state: keyState(keyTimes(row), at),
    published_at: iso(row.published_at),
    activated_at: iso(row.activated_at),
    retired_at: iso(row.retired_at),
    unpublished_at: iso(row.unpublished_at),
    signed_at_once: row.signed_at_once,
    compromised_at: iso(row.compromised_at),
    private_destroyed_at: iso(row.private_destroyed_at),
  }));
}

function iso(text: string | null): string | null {
  return text === null ? null : new Date(text).toISOString();
}
