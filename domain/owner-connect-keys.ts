/**
 * The rules of the owner-connect token signing keys (docs/contract.md#owner-connect, rule 7: a
 * new signing key is published at least 24 hours before it signs; a retired key stays published
 * 24 hours after it stops).
 *
 * A key's life is told by its instants, never by a stored state, so the set a channel reads and
 * the key that signs follow the rules at any instant even when the rotation workflow is late:
 * - `published`: in the key set, not signing yet (from `publishedAt`);
 * - `active`: the one key that signs (from `activatedAt` until `retiredAt`);
 * - `retired`: no longer signs, still in the set until `unpublishedAt` (retirement + 24 h, or at
 *   once for a compromised key);
 * - `withdrawn`: out of the set; the row stays for audit, its private part destroyed.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** A key is published this long before it may sign; a retired key stays published this long. */
export const PUBLICATION_LEAD_MS = DAY_MS;
export const RETIRED_OVERLAP_MS = DAY_MS;
/** The shortest rotation period: the next key is created a day before the switch, a day after the previous drop. */
export const MIN_ROTATION_DAYS = 2;
/**
 * `Cache-Control: max-age` of the key set. A channel that cached the set must see a new key
 * before it signs (24 h after publication), so the age is well under a day; it also bounds how
 * long a channel caching the set may still trust a key withdrawn at once as compromised.
 */
export const KEY_SET_MAX_AGE_SECONDS = 900;

export type KeyState = 'published' | 'active' | 'retired' | 'withdrawn';

export interface KeyTimes {
  publishedAt: Date;
  activatedAt: Date | null;
  retiredAt: Date | null;
  unpublishedAt: Date | null;
}

/** The state of a key at `at`. A key not yet published at `at` counts as published (it is in no earlier set). */
export function keyState(key: KeyTimes, at: Date): KeyState {
  const t = at.getTime();
  if (key.unpublishedAt && t >= key.unpublishedAt.getTime()) return 'withdrawn';
  if (key.retiredAt && t >= key.retiredAt.getTime()) return 'retired';
  if (key.activatedAt && t >= key.activatedAt.getTime()) return 'active';
  return 'published';
}

/** In the key set at `at`: published, and not past its withdrawal. */
export function isPublishedAt(key: KeyTimes, at: Date): boolean {
  return (
    key.publishedAt.getTime() <= at.getTime() &&
    (key.unpublishedAt === null || at.getTime() < key.unpublishedAt.getTime())
  );
}

/** The contract's rule for a switch: a key signs only once it has been published for 24 hours. */
export function maySign(publishedAt: Date, at: Date): boolean {
  return at.getTime() - publishedAt.getTime() >= PUBLICATION_LEAD_MS;
}

/** When a key retired at `retiredAt` leaves the set. */
export function unpublishAfterRetirement(retiredAt: Date): Date {
  return new Date(retiredAt.getTime() + RETIRED_OVERLAP_MS);
}

export interface ScheduledKey extends KeyTimes {
  kid: string;
  /** The sealed private part still exists. */
  hasPrivate: boolean;
}

export type RotationStep =
  /** No key signs: create the deployment's first key and let it sign at once (the bootstrap rule). */
  | { kind: 'bootstrap' }
  /** Out of the set: destroy the private part (the row stays). */
  | { kind: 'destroy'; kid: string }
  /** The pending key has been published 24 h: it signs, the active one retires. */
  | { kind: 'switch'; kid: string }
  /** The active key has signed for the period less a day: publish its successor. */
  | { kind: 'create' };

export interface RotationPlan {
  /** What is due at `at`, in the order to apply. */
  due: RotationStep[];
  /** The next instant something falls due after those (never earlier than `at`). */
  nextAt: Date;
}

/**
 * What the rotation must do at `at`, and when it must look again. With period P: the successor is
 * published at activation + P − 24 h, switches at activation + P (so after 24 h in the set), and
 * the retired key leaves the set 24 h later (its private part is destroyed then). A key published
 * early (an operator's early rotation) switches 24 h after its publication.
 */
export function planRotation(keys: readonly ScheduledKey[], at: Date, rotationDays: number): RotationPlan {
  const period = Math.max(rotationDays, MIN_ROTATION_DAYS) * DAY_MS;
  const t = at.getTime();
  const due: RotationStep[] = [];
  const later: number[] = [];
  for (const key of keys) {
    if (!key.hasPrivate || key.unpublishedAt === null) continue;
    if (key.unpublishedAt.getTime() <= t) due.push({ kind: 'destroy', kid: key.kid });
    else later.push(key.unpublishedAt.getTime());
  }
  const active = keys.find((key) => keyState(key, at) === 'active');
  const pending = keys
    .filter((key) => key.activatedAt === null && key.unpublishedAt === null)
    .sort((a, b) => a.publishedAt.getTime() - b.publishedAt.getTime())[0];
  if (!active) {
    due.push({ kind: 'bootstrap' });
  } else if (pending) {
    const switchAt = pending.publishedAt.getTime() + PUBLICATION_LEAD_MS;
    if (switchAt <= t) due.push({ kind: 'switch', kid: pending.kid });
    else later.push(switchAt);
  } else {
    const createAt = active.activatedAt!.getTime() + period - PUBLICATION_LEAD_MS;
    if (createAt <= t) due.push({ kind: 'create' });
    else later.push(createAt);
  }
  // After a due step the state changed: look again at once (the caller applies and plans again).
  const nextAt = due.length > 0 ? t : Math.min(...later, t + period);
  return { due, nextAt: new Date(nextAt) };
}
