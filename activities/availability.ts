import type { Clock } from '../domain/clock.ts';
import { localDate } from '../domain/time.ts';
import * as availability from '../services/availability.ts';
import type { ActivityDeps } from './deps.ts';

export interface RollOutcome {
  /** Properties of the zone looked at. */
  properties: number;
  /** Properties whose horizon moved (the others were already rolled for `today`). */
  rolled: number;
  /** The zone's local date the roll was for. */
  today: string;
}

export function availabilityActivities(deps: ActivityDeps) {
  const { log } = deps;
  return {
    /**
     * The daily roll of one zone (see `rollHorizon`), in transactions of a bounded number of
     * properties, each retried on deadlock.
     *
     * The roll is for `nowMs`, the instant the workflow woke for (its local midnight), not the
     * worker's clock: a roll that runs late, is retried, or whose workflow is replayed rolls the
     * same local day, and a test server that skips time rolls the day its workflow is at. The
     * roll is idempotent per local date, so running it again for the same instant changes nothing.
     */
    async rollHorizon(zone: string, nowMs: number): Promise<RollOutcome> {
      const clock: Clock = { now: () => new Date(nowMs) };
      const { properties, rolled } = await availability.rollHorizon(deps, zone, clock);
      const today = localDate(clock.now(), zone);
      if (rolled > 0) log.info('availability horizon rolled', { zone, today, properties, rolled });
      return { properties, rolled, today };
    },

    /** The zones that have properties with availability: one horizon roll each. */
    async zonesToRoll(): Promise<string[]> {
      return availability.zonesToRoll(deps);
    },
  };
}
