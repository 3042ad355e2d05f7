import { asyncLocalStorage } from '@temporalio/activity';
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

/** What a roll heartbeats after each committed batch: where a retry goes on, and the counts so far. */
interface RollHeartbeat {
  after: string | null;
  properties: number;
  rolled: number;
}

const NOTHING_ROLLED: RollHeartbeat = { after: null, properties: 0, rolled: 0 };

export function availabilityActivities(deps: ActivityDeps) {
  const { log } = deps;
  return {
    /**
     * The daily roll of one zone (see `rollHorizon`), in transactions of a bounded number of
     * properties, each retried on deadlock. It heartbeats after each batch commits, so a lost
     * worker is noticed within the heartbeat timeout, and a retry skips the batches committed.
     *
     * The roll is for `nowMs`, the instant the workflow woke for (its local midnight), not the
     * worker's clock: a roll that runs late, is retried, or whose workflow is replayed rolls the
     * same local day, and a test server that skips time rolls the day its workflow is at. The
     * roll is idempotent per local date, so running it again for the same instant changes nothing.
     */
    async rollHorizon(zone: string, nowMs: number): Promise<RollOutcome> {
      const clock: Clock = { now: () => new Date(nowMs) };
      const context = asyncLocalStorage.getStore();
      // A retry of this roll (same zone, same instant) goes on after the last batch the attempt
      // before it committed and heartbeat, with that attempt's counts.
      const earlier = (context?.info.heartbeatDetails as RollHeartbeat | undefined) ?? NOTHING_ROLLED;
      const outcome = await availability.rollHorizon(deps, zone, clock, undefined, {
        after: earlier.after,
        committed: (progress) => {
          context?.heartbeat({
            after: progress.after,
            properties: earlier.properties + progress.properties,
            rolled: earlier.rolled + progress.rolled,
          } satisfies RollHeartbeat);
          // Timed out (its heartbeat was late) or cancelled: the batches from here are a retry's.
          context?.cancellationSignal.throwIfAborted();
        },
      });
      const properties = earlier.properties + outcome.properties;
      const rolled = earlier.rolled + outcome.rolled;
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
