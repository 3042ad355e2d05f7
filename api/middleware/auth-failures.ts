import type { Request } from 'express';
import { addToWindow } from '../../db/counters.ts';
import type { AppDeps } from '../context.ts';
import { ProblemError } from '../../domain/problems.ts';
import { clientOf } from './client-address.ts';
import { KeyCache } from './key-cache.ts';

type Deps = Pick<AppDeps, 'orm' | 'clock' | 'config'>;

/** Far more addresses than one process sees locked out in a minute; past it the least recently seen go first. */
const LOCKOUT_CAPACITY = 100_000;

/**
 * The client addresses this process saw go past the failed-authentication limit, each until the
 * end of its window. While an address is here, a request from it that this process cannot accept
 * without asking the database is answered 429 without asking it and without counting: the count
 * is already past the limit, so neither would change the answer, and a flood of refused requests
 * then costs no database work at all. Another API process learns of the lockout from the shared
 * counter at its first failure from that address.
 */
class Lockouts {
  readonly #until = new KeyCache<number>(LOCKOUT_CAPACITY);

  /** Seconds left of the address's lockout at `now`, or null. */
  remaining(address: string, now: number): number | null {
    const until = this.#until.get(address);
    if (until === undefined) return null;
    if (until <= now) {
      this.#until.delete(address);
      return null;
    }
    return Math.max(1, Math.ceil((until - now) / 1000));
  }

  lock(address: string, until: number): void {
    this.#until.set(address, until);
  }
}

// One memory per database: the counter it mirrors is kept there, and every interface of the
// process (distribution, platform, integration) shares it as they share the counter.
const lockoutsByDatabase = new WeakMap<object, Lockouts>();

function lockoutsOf(deps: Pick<AppDeps, 'orm'>): Lockouts {
  let lockouts = lockoutsByDatabase.get(deps.orm);
  if (!lockouts) {
    lockouts = new Lockouts();
    lockoutsByDatabase.set(deps.orm, lockouts);
  }
  return lockouts;
}

/** Seconds left of the lockout of the request's client address, or null when it is not locked out. */
export function failedAuthenticationLockout(deps: Pick<AppDeps, 'orm' | 'clock'>): (req: Request) => number | null {
  const lockouts = lockoutsOf(deps);
  return (req) => lockouts.remaining(clientOf(req), deps.clock.now().getTime());
}

/**
 * Counts one failed authentication against the client's address (every interface shares the
 * count). Answers null within AUTH_FAILURE_LIMIT per minute, else the seconds left in the minute:
 * past the limit the caller answers 429 instead of letting it learn anything more from the refusal.
 * An address already locked out is answered at once, neither counted nor looked up.
 */
export function failedAuthenticationCounter(deps: Deps): (req: Request) => Promise<number | null> {
  const { orm, clock, config } = deps;
  const lockouts = lockoutsOf(deps);
  return async (req) => {
    const address = clientOf(req);
    const now = clock.now();
    const locked = lockouts.remaining(address, now.getTime());
    if (locked !== null) return locked;
    const { count, resetSeconds } = await addToWindow(orm.em.fork(), `auth-fail:${address}`, 1, now);
    if (count <= config.authFailureLimit) return null;
    lockouts.lock(address, now.getTime() + resetSeconds * 1000);
    return resetSeconds;
  };
}

/** The problem answered past the limit, with the seconds left. */
export function tooManyFailedAuthentications(retryAfter: number): ProblemError {
  return new ProblemError('too_many_failed_authentications', { headers: { 'Retry-After': String(retryAfter) } });
}

/** The distribution and platform interfaces' form: past the limit, the problem `too_many_failed_authentications`. */
export function failedAuthentications(deps: Deps): (req: Request) => Promise<void> {
  const count = failedAuthenticationCounter(deps);
  return async (req) => {
    const retryAfter = await count(req);
    if (retryAfter !== null) throw tooManyFailedAuthentications(retryAfter);
  };
}
