/**
 * What `npm run bench:scale` loads at each size, and when each row of its history happened.
 *
 * One channel sees `properties` properties; its event log holds 37 days of history before the
 * rows the service itself wrote when the size was built (at `builtAt`, "T0"): day blocks from the
 * UTC midnight 37 days before T0's, each of `regulars` platform writes in bursts of ten (a host's
 * or a sync's writes a few milliseconds apart: four in five `property.updated`, one in five a
 * price change, `availability.updated` with a range) spread over the day's first 22 hours, then
 * at 22:00Z (local midnight in Europe/Bucharest, the zone of the channel's properties) the
 * daily roll: one `availability.updated` per property announcing its new last night, committed 50
 * properties to a transaction. One webhook endpoint, registered at the start of the second day,
 * subscribes to the catalogue's events: every `property.updated` after it is a delivery, made
 * when the dispatcher reads its burst (so a burst's deliveries share one `created_at`), each
 * attempted once and delivered, one in fifty failing first and delivered a minute later.
 *
 * So the oldest day of events (36 days kept) and of deliveries (35 days) is past the window at
 * T0, as it is every day at midnight before the sweep. Positions grow with stamps; every
 * transaction's stamp is later than the last one's, as `withChannelLog` makes them.
 */

export const DAY_MS = 86_400_000;
export const BLOCKS = 37;
export const BURST = 10;
/** Milliseconds between the writes of one burst. */
export const BURST_STEP_MS = 7;
/** When in a block (a UTC day) the roll commits: local midnight in Europe/Bucharest in winter. */
export const ROLL_AT_MS = 22 * 3_600_000;
/** Properties per transaction of the roll. */
export const ROLL_BATCH = 50;
/** Of every 20 platform writes, this many are `property.updated`, the rest price changes. */
export const CATALOGUE_OF_20 = 16;
/** From a burst's last write to its deliveries' `created_at`: the dispatcher's reading. */
export const DISPATCH_LAG_MS = 300;
/** From a delivery's creation to its first attempt. */
export const ATTEMPT_LAG_MS = 60;
/** One delivery in this many fails its first attempt and is delivered on the retry. */
export const FAILING_ONE_IN = 50;
/** Whether the delivery of the event at `pos` failed first: one in FAILING_ONE_IN. */
export const failedFirstSql = (pos: string) => `(${pos} % ${FAILING_ONE_IN} = 7)`;
/** The first retry's nominal delay (domain/webhooks/retry-schedule.ts), jittered ±20 %. */
export const RETRY_MS = 60_000;

/** The sizes, as multiples of the smallest. */
export const SIZES: readonly number[] = [1, 10, 100];

export interface ScalePlan {
  factor: number;
  properties: number;
  /** Platform writes per day block. */
  regulars: number;
  /** Events of the history (before the rows the service wrote at T0). */
  events: number;
  /** Deliveries of the history: `property.updated` from the second day block on. */
  deliveries: number;
  /** Milliseconds between bursts. */
  burstSpanMs: number;
  /** Epoch milliseconds of the first block's start. */
  startMs: number;
}

/** The midnight (UTC) that starts the day of `ms`. */
export const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

export function scalePlan(factor: number, builtAt: Date): ScalePlan {
  const properties = 1000 * factor;
  const regulars = 1700 * factor;
  const events = BLOCKS * (regulars + properties);
  const deliveries = ((BLOCKS - 1) * regulars * CATALOGUE_OF_20) / 20;
  return {
    factor,
    properties,
    regulars,
    events,
    deliveries,
    burstSpanMs: Math.floor(ROLL_AT_MS / (regulars / BURST)),
    startMs: dayStart(builtAt.getTime()) - BLOCKS * DAY_MS,
  };
}

/** Positions in a block: its platform writes, then its roll. */
export const blockLength = (plan: ScalePlan) => plan.regulars + plan.properties;

/** The last position of the history and its stamp (the last roll's last transaction). */
export function historyEnd(plan: ScalePlan): { position: number; stampMs: number } {
  const lastRoll = plan.startMs + (BLOCKS - 1) * DAY_MS + ROLL_AT_MS;
  return { position: plan.events, stampMs: lastRoll + Math.floor((plan.properties - 1) / ROLL_BATCH) };
}

/** The position of the history's middle event. */
export function middleOfHistory(plan: ScalePlan): number {
  return Math.floor(plan.events / 2);
}

/**
 * SQL expressions of an event's place, from its position (`pos`, a bigint expression): its block,
 * its index in the block, whether it is a platform write, and its burst and place in the burst.
 */
export function placeSql(plan: ScalePlan, pos: string) {
  const length = blockLength(plan);
  const block = `((${pos} - 1) / ${length})`;
  const index = `((${pos} - 1) % ${length})`;
  const isRegular = `(${index} < ${plan.regulars})`;
  const burst = `(${index} / ${BURST})`;
  const inBurst = `(${index} % ${BURST})`;
  const global = `(${block} * ${plan.regulars} + ${index})`;
  const rollIndex = `(${index} - ${plan.regulars})`;
  const blockStart = `(${plan.startMs}::bigint + ${block} * ${DAY_MS}::bigint)`;
  const burstStart = `(${blockStart} + ${burst} * ${plan.burstSpanMs})`;
  // A write's stamp is the whole second it asked for, a millisecond past the last when that is
  // later (withChannelLog): a burst's writes in one second are stamped a millisecond apart.
  const regularMs = `((${burstStart} / 1000) * 1000 + ${inBurst})`;
  const rollMs = `(${blockStart} + ${ROLL_AT_MS} + ${rollIndex} / ${ROLL_BATCH})`;
  return {
    block,
    index,
    isRegular,
    burst,
    inBurst,
    global,
    rollIndex,
    stampMs: `(case when ${isRegular} then ${regularMs} else ${rollMs} end)`,
    /** When the writer's clock read the event's id: the write's own instant. */
    idMs: `(case when ${isRegular} then ${burstStart} + ${inBurst} * ${BURST_STEP_MS} else ${rollMs} end)`,
    isCatalogue: `(${isRegular} and ${global} % 20 < ${CATALOGUE_OF_20})`,
    /** The property a write names: catalogue writes go round the properties in order, so each day names every one. */
    property: `(case when not ${isRegular} then ${rollIndex} when ${global} % 20 < ${CATALOGUE_OF_20} then (${CATALOGUE_OF_20} * (${global} / 20) + ${global} % 20) % ${plan.properties} else (${global} * 7) % ${plan.properties} end)`,
    /** When the burst's deliveries were made. */
    dispatchMs: `(${burstStart} + ${(BURST - 1) * BURST_STEP_MS + DISPATCH_LAG_MS})`,
    blockStartMs: blockStart,
  };
}
