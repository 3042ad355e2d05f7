import type { KeyWithChannel } from '../../db/api-keys.ts';

/** A key as last read from the database, with its channel. */
export type KnownKey = KeyWithChannel;

/**
 * The keys this process has seen lately, by the SHA-256 of their secret (the database's own index;
 * no secret is kept). An entry says only that the key was usable when last checked, so the next
 * request may start its read beside the check instead of after it: every request is still checked
 * against the database, and the check decides the answer. Bounded; the least recently used goes first.
 * `V`: what is remembered of each (the key and channel here; a mark, or an instant, elsewhere).
 */
export class KeyCache<V = KnownKey> {
  readonly #entries = new Map<string, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(secretHash: string): V | undefined {
    const key = this.#entries.get(secretHash);
    if (key !== undefined) {
      // Map keeps insertion order: moving the entry to the end makes the first the least recently used.
      this.#entries.delete(secretHash);
      this.#entries.set(secretHash, key);
    }
    return key;
  }

  set(secretHash: string, key: V): void {
    this.#entries.delete(secretHash);
    this.#entries.set(secretHash, key);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(secretHash: string): void {
    this.#entries.delete(secretHash);
  }

  get size(): number {
    return this.#entries.size;
  }
}
