/**
 * The deployment's server secrets, so one can be rotated: the newest key tags new cursors and
 * seals new secrets, every key still in the ring verifies and opens what it made, and a key
 * dropped from the ring makes its cursors invalid and its sealed values unreadable. Approximate
 * points are keyed apart (`geo`), by a secret that never rotates, so they never move.
 */
export interface ServerKey {
  /** 0 is the legacy `SERVER_SECRET`; values sealed or tagged before key ids existed belong to it. */
  id: number;
  secret: Uint8Array;
}

export interface KeyRing {
  /** Newest first; never empty. */
  keys: readonly ServerKey[];
  /** Keys approximate points; the same across rotations. */
  geo: Uint8Array;
}

export function keyRing(keys: readonly ServerKey[], geo: Uint8Array): KeyRing {
  if (keys.length === 0) throw new RangeError('keyRing: no key');
  const ids = new Set(keys.map((key) => key.id));
  if (ids.size !== keys.length) throw new RangeError('keyRing: two keys with one id');
  for (const key of keys)
    if (!Number.isSafeInteger(key.id) || key.id < 0) throw new RangeError(`keyRing: bad key id ${key.id}`);
  return { keys: [...keys].sort((a, b) => b.id - a.id), geo };
}

/** One secret, as before key ids: key 0, which also keys approximate points. */
export function singleKeyRing(secret: Uint8Array): KeyRing {
  return keyRing([{ id: 0, secret }], secret);
}

/** The key that tags and seals now. */
export function currentKey(ring: KeyRing): ServerKey {
  return ring.keys[0]!;
}

export function keyById(ring: KeyRing, id: number): ServerKey | undefined {
  return ring.keys.find((key) => key.id === id);
}
