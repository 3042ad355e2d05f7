import type { EntityManager } from '@mikro-orm/postgresql';
import {
  activateKey,
  activeKey,
  allKeys,
  destroyPrivatePart,
  keyByKid,
  lockKeySet,
  retireKey,
  withdrawCompromised,
} from '../../db/owner-connect-keys.ts';
import { writeTransaction } from '../../db/sql.ts';
import {
  keyState,
  maySign,
  planRotation,
  PUBLICATION_LEAD_MS,
  unpublishAfterRetirement,
  type RotationStep,
  type ScheduledKey,
} from '../../domain/owner-connect-keys.ts';
import type { ServiceDeps } from '../deps.ts';
import { Refusal } from '../refusal.ts';
import { bootstrapKey, createKey, keyTimes } from './signing-keys.ts';

type Deps = Pick<ServiceDeps, 'orm' | 'secrets' | 'log'>;

async function scheduledKeys(tx: EntityManager): Promise<ScheduledKey[]> {
  return (await allKeys(tx)).map((key) => ({ kid: key.kid, hasPrivate: key.privateJwk !== null, ...keyTimes(key) }));
}

/**
 * The switch: the pending key starts signing and the active one retires, at the same instant, so
 * exactly one key signs. Refused (a programming error, never a data state) for a key published
 * less than 24 hours before `at`: the contract's rule holds even if a caller got the plan wrong.
 */
async function switchTo(tx: EntityManager, kid: string, at: Date): Promise<void> {
  const next = await keyByKid(tx, kid);
  if (!next || next.activatedAt !== null || next.unpublishedAt !== null)
    throw new Error(`owner-connect key ${kid} is not pending`);
  if (!maySign(next.publishedAt, at))
    throw new Error(`owner-connect key ${kid} was published less than 24 hours ago and may not sign yet`);
  const current = await activeKey(tx, at);
  if (current) await retireKey(tx, current.kid, at, unpublishAfterRetirement(at));
  await activateKey(tx, kid, at, null);
}

async function apply(tx: EntityManager, deps: Deps, step: RotationStep, at: Date): Promise<string> {
  switch (step.kind) {
    case 'bootstrap':
      return `bootstrap ${(await bootstrapKey(tx, deps, at)) ?? ''}`.trim();
    case 'destroy':
      await destroyPrivatePart(tx, step.kid, at);
      return `destroy ${step.kid}`;
    case 'switch':
      await switchTo(tx, step.kid, at);
      return `switch ${step.kid}`;
    case 'create':
      return `create ${await createKey(tx, deps, at, null)}`;
  }
}

/**
 * Does what the rotation schedule has due at `at` (bootstrap, destroy the private part of keys
 * out of the set, switch to a key published 24 h ago, publish the next key) in one transaction
 * under the key-set lock, and answers what it did and when something next falls due. Idempotent:
 * a retried or replayed call at the same instant finds nothing more due.
 */
export async function advanceKeyRotation(
  deps: Deps,
  at: Date,
  rotationDays: number,
): Promise<{ applied: string[]; nextAt: Date }> {
  const result = await writeTransaction(deps.orm.em, async (tx) => {
    await lockKeySet(tx);
    const applied: string[] = [];
    // Each pass applies what was due; the state it leaves has nothing due at `at` after at most
    // bootstrap/switch then create, so a few passes suffice.
    for (let pass = 0; pass < 4; pass += 1) {
      const plan = planRotation(await scheduledKeys(tx), at, rotationDays);
      if (plan.due.length === 0) return { applied, nextAt: plan.nextAt };
      for (const step of plan.due) applied.push(await apply(tx, deps, step, at));
    }
    throw new Error('owner-connect key rotation: the schedule did not settle');
  });
  if (result.applied.length > 0)
    deps.log.info('owner-connect signing keys rotated', { applied: result.applied, at: at.toISOString() });
  return result;
}

export interface EarlyRotation {
  /** The key that signs next (pending), or that signs now (after a compromise). */
  kid: string;
  /** When it signs: 24 h after its publication, or at once after a compromise. */
  signsFrom: string;
  /** A key was created (false: a key already pending is the next one). */
  created: boolean;
  /** The key withdrawn as compromised. */
  withdrawn?: string;
}

/**
 * An operator's early rotation. Ordinary: publish the next key now (or keep the one already
 * pending); it signs 24 hours after its publication, like a scheduled one. Compromised: the named
 * key (by default the active one) leaves the set and loses its private part at once, and when it
 * was the signer, the oldest pending key or else a new one signs at once (the emergency
 * exception to the 24-hour rule: a channel with a cached set refetches on the unknown kid, and
 * tokens signed by the compromised key stop verifying).
 */
export async function rotateKeyEarly(
  deps: Deps,
  input: { at: Date; compromised: boolean; kid?: string },
): Promise<EarlyRotation> {
  const { at } = input;
  const result = await writeTransaction(deps.orm.em, async (tx): Promise<EarlyRotation> => {
    await lockKeySet(tx);
    const pending = (await allKeys(tx)).find((key) => key.activatedAt === null && key.unpublishedAt === null);
    if (!input.compromised) {
      if (input.kid !== undefined) throw new Refusal('--kid names a compromised key; it goes with --compromised');
      if (pending)
        return {
          kid: pending.kid,
          signsFrom: new Date(pending.publishedAt.getTime() + PUBLICATION_LEAD_MS).toISOString(),
          created: false,
        };
      const kid = await createKey(tx, deps, at, null);
      return { kid, signsFrom: new Date(at.getTime() + PUBLICATION_LEAD_MS).toISOString(), created: true };
    }
    const active = await activeKey(tx, at);
    const target = input.kid === undefined ? active : await keyByKid(tx, input.kid);
    if (!target) throw new Refusal(input.kid === undefined ? 'no key signs now' : `no owner-connect key ${input.kid}`);
    if (keyState(keyTimes(target), at) === 'withdrawn' && target.compromisedAt !== null)
      throw new Refusal(`key ${target.kid} is already withdrawn as compromised`);
    await withdrawCompromised(tx, target.kid, at);
    if (active?.kid !== target.kid) {
      // Not the signer: it only leaves the set. The next key stays as planned.
      if (!active) throw new Error('owner-connect: no key signs');
      return {
        kid: active.kid,
        signsFrom: active.activatedAt!.toISOString(),
        created: false,
        withdrawn: target.kid,
      };
    }
    const replacement = target.kid === pending?.kid ? undefined : pending;
    if (replacement) {
      await activateKey(tx, replacement.kid, at, 'emergency');
      return { kid: replacement.kid, signsFrom: at.toISOString(), created: false, withdrawn: target.kid };
    }
    const kid = await createKey(tx, deps, at, { activatedAt: at, signedAtOnce: 'emergency' });
    return { kid, signsFrom: at.toISOString(), created: true, withdrawn: target.kid };
  });
  deps.log.warn('owner-connect signing key rotated early', { ...result, compromised: input.compromised });
  return result;
}
