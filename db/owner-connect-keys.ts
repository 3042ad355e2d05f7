import type { EntityManager } from '@mikro-orm/postgresql';

/** An owner-connect signing key: its public JWK, its sealed private JWK and the instants of its life. */
export interface SigningKey {
  kid: string;
  /** The public JWK as served, JSON text. */
  publicJwk: string;
  /** The private JWK sealed under the server key ring; null once destroyed. */
  privateJwk: string | null;
  createdAt: Date;
  publishedAt: Date;
  activatedAt: Date | null;
  retiredAt: Date | null;
  unpublishedAt: Date | null;
  signedAtOnce: 'bootstrap' | 'emergency' | null;
  compromisedAt: Date | null;
  privateDestroyedAt: Date | null;
}

/** A key as raw queries return it (instants as text). */
interface SigningKeyRow {
  kid: string;
  public_jwk: string;
  private_jwk: string | null;
  created_at: string;
  published_at: string;
  activated_at: string | null;
  retired_at: string | null;
  unpublished_at: string | null;
  signed_at_once: 'bootstrap' | 'emergency' | null;
  compromised_at: string | null;
  private_destroyed_at: string | null;
}

const instant = (text: string | null) => (text === null ? null : new Date(text));

function keyOf(row: SigningKeyRow): SigningKey {
  return {
    kid: row.kid,
    publicJwk: row.public_jwk,
    privateJwk: row.private_jwk,
    createdAt: new Date(row.created_at),
    publishedAt: new Date(row.published_at),
    activatedAt: instant(row.activated_at),
    retiredAt: instant(row.retired_at),
    unpublishedAt: instant(row.unpublished_at),
    signedAtOnce: row.signed_at_once,
    compromisedAt: instant(row.compromised_at),
    privateDestroyedAt: instant(row.private_destroyed_at),
  };
}

const COLUMNS = `kid, public_jwk, private_jwk, created_at, published_at, activated_at, retired_at, unpublished_at,
  signed_at_once, compromised_at, private_destroyed_at`;

/**
 * Serialises the changes of the key set (bootstrap, switch, early rotation, compromise) for the
 * rest of the transaction: two first tokens minted at once create one key, not two.
 */
export async function lockKeySet(tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('owner_connect_key'))`);
}

/** Every key, oldest publication first. */
export async function allKeys(em: EntityManager): Promise<SigningKey[]> {
  const rows = await em.execute<SigningKeyRow[]>(`select ${COLUMNS} from owner_connect_key order by published_at, kid`);
  return rows.map(keyOf);
}

/** The keys in the set at `at`: published by then and not yet withdrawn; oldest first. */
export async function publishedKeys(em: EntityManager, at: Date): Promise<SigningKey[]> {
  const rows = await em.execute<SigningKeyRow[]>(
    `select ${COLUMNS} from owner_connect_key where published_at <= ? and (unpublished_at is null or unpublished_at > ?) order by published_at, kid`,
    [at, at],
  );
  return rows.map(keyOf);
}

export async function keyByKid(em: EntityManager, kid: string): Promise<SigningKey | null> {
  const [row] = await em.execute<SigningKeyRow[]>(`select ${COLUMNS} from owner_connect_key where kid = ?`, [kid]);
  return row ? keyOf(row) : null;
}

/** The key that signs at `at`: activated by then and not retired. */
export async function activeKey(em: EntityManager, at: Date): Promise<SigningKey | null> {
  const [row] = await em.execute<SigningKeyRow[]>(
    `select ${COLUMNS} from owner_connect_key where activated_at <= ? and (retired_at is null or retired_at > ?) order by activated_at desc limit 1`,
    [at, at],
  );
  return row ? keyOf(row) : null;
}

export interface NewKey {
  kid: string;
  publicJwk: string;
  sealedPrivateJwk: string;
  at: Date;
  activatedAt: Date | null;
  signedAtOnce: 'bootstrap' | 'emergency' | null;
}

export async function insertKey(tx: EntityManager, key: NewKey): Promise<void> {
  await tx.execute(
    `insert into owner_connect_key (kid, public_jwk, private_jwk, created_at, published_at, activated_at, signed_at_once) values (?, ?, ?, ?, ?, ?, ?)`,
    [key.kid, key.publicJwk, key.sealedPrivateJwk, key.at, key.at, key.activatedAt, key.signedAtOnce],
  );
}

/** The key starts signing at `at`. */
export async function activateKey(
  tx: EntityManager,
  kid: string,
  at: Date,
  signedAtOnce: 'bootstrap' | 'emergency' | null,
): Promise<void> {
  await tx.execute(
    `update owner_connect_key set activated_at = ?, signed_at_once = ? where kid = ? and activated_at is null`,
    [at, signedAtOnce, kid],
  );
}

/** The key stops signing at `at` and leaves the set at `unpublishedAt`. */
export async function retireKey(tx: EntityManager, kid: string, at: Date, unpublishedAt: Date): Promise<void> {
  await tx.execute(
    `update owner_connect_key set retired_at = coalesce(retired_at, ?), unpublished_at = ? where kid = ?`,
    [at, unpublishedAt, kid],
  );
}

/** A compromised key: out of the set and its private part destroyed, at once. */
export async function withdrawCompromised(tx: EntityManager, kid: string, at: Date): Promise<void> {
  await tx.execute(
    `update owner_connect_key set retired_at = coalesce(retired_at, ?), unpublished_at = ?, compromised_at = ?, private_jwk = null, private_destroyed_at = ?
      where kid = ?`,
    [at, at, at, at, kid],
  );
}

/** Destroys the private part of a key that has left the set; true when it did. */
export async function destroyPrivatePart(tx: EntityManager, kid: string, at: Date): Promise<boolean> {
  const rows = await tx.execute<{ kid: string }[]>(
    `update owner_connect_key set private_jwk = null, private_destroyed_at = ? where kid = ? and private_jwk is not null and unpublished_at <= ? returning kid`,
    [at, kid, at],
  );
  return rows.length > 0;
}

/** Keys whose sealed private part does not start with `prefix` (sealed under another server key). */
export async function keysSealedOtherwise(
  em: EntityManager,
  prefix: string,
): Promise<{ kid: string; privateJwk: string }[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await em.execute<{ kid: string; private_jwk: string }[]>(
    `select kid, private_jwk from owner_connect_key where private_jwk is not null and private_jwk not like ?`,
    [pattern],
  );
  return rows.map((row) => ({ kid: row.kid, privateJwk: row.private_jwk }));
}

/** Replaces a sealed private part with the same key sealed again, unless it changed meanwhile; true when it did. */
export async function resealPrivatePart(em: EntityManager, kid: string, from: string, to: string): Promise<boolean> {
  const changed = await em.execute<{ kid: string }[]>(
    `update owner_connect_key set private_jwk = ? where kid = ? and private_jwk = ? returning kid`,
    [to, kid, from],
  );
  return changed.length > 0;
}
