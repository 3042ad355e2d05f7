/**
 * A small seeded generator for the sandbox catalogue: each record draws from a stream of its own,
 * named by the seed and the record (`streamOf(seed, 'property:12')`), so a record's values do not
 * depend on how many came before it and a later churn can redraw one record alone.
 */

export interface Stream {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  chance(probability: number): boolean;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
  /** `length` capital letters and digits. */
  code(length: number): string;
}

/** FNV-1a over the text's UTF-16 units: a 32-bit seed for a stream. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Mulberry32: fast, 32 bits of state, good enough for test data (never for secrets). */
export function streamOf(seed: number, name: string): Stream {
  let state = hash32(`${seed}|${name}`);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(values: readonly T[]): T => values[int(0, values.length - 1)]!,
    chance: (probability) => next() < probability,
    hex: (length) => Array.from({ length }, () => int(0, 15).toString(16)).join(''),
    code: (length) => Array.from({ length }, () => ALPHANUMERIC[int(0, ALPHANUMERIC.length - 1)]).join(''),
  };
}
