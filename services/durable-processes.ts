import type { EntityManager } from '@mikro-orm/postgresql';
import { zonesInUse } from '../db/availability.ts';
import { writeTransaction } from '../db/sql.ts';
import type { ServiceDeps } from './deps.ts';

type Deps = Pick<ServiceDeps, 'workflows' | 'log'>;

/**
 * A write and the re-projection of what it changed, in one transaction (run again from the start
 * on a deadlock); after it commits, the event dispatcher is woken so webhooks go out at once.
 */
export async function writeAndNotify<T>(
  deps: Deps & Pick<ServiceDeps, 'orm'>,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  const result = await writeTransaction(deps.orm.em, work);
  notifyDispatcher(deps);
  return result;
}

/**
 * After a write committed events: wake the dispatcher. Best effort: when Temporal is unreachable
 * the write still stands and the dispatcher's poll finds the events.
 */
export function notifyDispatcher({ workflows, log }: Deps): void {
  workflows
    .wakeDispatcher()
    .catch((error: unknown) =>
      log.warn('could not wake the event dispatcher; its poll will find the events', { error: String(error) }),
    );
}

/**
 * Best effort: after a write that may have brought a property into a zone (a new property, a
 * location's new timezone), start that zone's horizon roll. When Temporal is unreachable the write
 * still stands; the worker starts the rolls of every zone in use when it starts.
 */
export async function ensureHorizonRollsForZones({ workflows, log }: Deps, zones: readonly string[]): Promise<void> {
  try {
    await workflows.ensureHorizonRolls(zones);
  } catch (error) {
    log.warn('could not start the horizon roll of a zone; the next worker start will', {
      zones: [...zones],
      error: String(error),
    });
  }
}

/** At worker start: the roll of every zone that has properties with availability. Best effort. */
export async function ensureHorizonRollsInUse(deps: Deps & Pick<ServiceDeps, 'orm'>): Promise<void> {
  let zones: string[];
  try {
    zones = await zonesInUse(deps.orm.em.fork());
  } catch (error) {
    deps.log.warn('could not read the zones in use to start their horizon rolls', { error: String(error) });
    return;
  }
  await ensureHorizonRollsForZones(deps, zones);
}
