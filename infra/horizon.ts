import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { zonesInUse } from '../db/availability.ts';
import type { HorizonRollInput } from '../workflows/horizon-roll.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { Logger } from './logger.ts';

/**
 * Makes sure each zone has its horizon roll running (workflow id `horizon-roll:<zone>`). Starting
 * one that runs is a no-op (`USE_EXISTING`), so this may be called as often as convenient; one
 * that ended (terminated, failed) is started again and catches up at once.
 */
export async function ensureHorizonRolls(client: Client, taskQueue: string, zones: readonly string[]): Promise<void> {
  for (const zone of new Set(zones)) {
    const input: HorizonRollInput = { zone };
    await client.workflow.start('horizonRoll', {
      workflowId: workflowIds.horizonRoll(taskQueue, zone),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }
}

/**
 * Best effort: after a write that may have brought a property into a zone (a new property, a
 * location's new timezone), start that zone's roll. When Temporal is unreachable the write still
 * stands; the worker starts the rolls of every zone in use when it starts.
 */
export async function ensureHorizonRollsForZones(client: Client, taskQueue: string, zones: readonly string[], log: Logger): Promise<void> {
  try {
    await ensureHorizonRolls(client, taskQueue, zones);
  } catch (error) {
    log.warn('could not start the horizon roll of a zone; the next worker start will', { zones: [...zones], error: String(error) });
  }
}

/** At worker start: the roll of every zone that has properties with availability. Best effort. */
export async function ensureHorizonRollsInUse(client: Client, taskQueue: string, em: EntityManager, log: Logger): Promise<void> {
  let zones: string[];
  try {
    zones = await zonesInUse(em);
  } catch (error) {
    log.warn('could not read the zones in use to start their horizon rolls', { error: String(error) });
    return;
  }
  await ensureHorizonRollsForZones(client, taskQueue, zones, log);
}
