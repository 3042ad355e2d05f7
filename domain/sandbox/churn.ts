import { streamOf } from './random.ts';

/**
 * The sandbox churn: the changes that keep a generated catalogue moving, each chosen from the
 * seed and its number alone (`churnChange(seed, n)`), so a run stopped anywhere and started again
 * from its number makes the same changes, and a test can name them. What a change does to the
 * property it lands on is decided where the property is read (services/sandbox-churn.ts); here,
 * only its kind and the numbers it is made of.
 */

export const CHURN_KINDS = [
  'prices',
  'availability',
  'text',
  'withdraw',
  'restore',
  'delete',
  'create',
  'certificate',
] as const;
export type ChurnKind = (typeof CHURN_KINDS)[number];

/**
 * Changes of each kind in a thousand: mostly nights (prices, units, stay limits), then texts; a
 * property leaves a channel as often as one comes back, one is created as often as one is deleted,
 * and one in twenty changes sets a Romanian certificate to lapse at the end of its local day.
 */
export const CHURN_MIX: Readonly<Record<ChurnKind, number>> = {
  prices: 350,
  availability: 250,
  text: 150,
  withdraw: 70,
  restore: 70,
  delete: 30,
  create: 30,
  certificate: 50,
};

export interface ChurnChange {
  /** The change's number in the run, from 0. */
  number: number;
  kind: ChurnKind;
  /** Which candidate property it lands on: its place in the candidates, as a fraction in [0, 1). */
  pick: number;
  /** Nights from the day after tomorrow (UTC) the night range starts at, and its length. */
  offset: number;
  nights: number;
  /** A price's share of the plan's default, in percent (80 to 130). */
  percent: number;
  /** Which plan, channel, phrase or setting, modulo their number. */
  variant: number;
}

/** Nights a change's range may start after the day after tomorrow: well inside every zone's horizon. */
export const CHURN_LAST_OFFSET = 330;
/** The ref a created property gets: never one the generator writes, never one another change creates. */
export const churnCreatedRef = (number: number) => `sbx-prp-churn-${number}`;

function kindAt(fraction: number): ChurnKind {
  let left = Math.floor(fraction * 1000);
  for (const kind of CHURN_KINDS) {
    if (left < CHURN_MIX[kind]) return kind;
    left -= CHURN_MIX[kind];
  }
  return CHURN_KINDS[0];
}

/** Change `number` of the churn seeded `seed`: the same answer every time. */
export function churnChange(seed: number, number: number): ChurnChange {
  const stream = streamOf(seed, `churn:${number}`);
  return {
    number,
    kind: kindAt(stream.next()),
    pick: stream.next(),
    offset: stream.int(0, CHURN_LAST_OFFSET),
    nights: stream.int(1, 14),
    percent: stream.int(80, 130),
    variant: stream.int(0, 999),
  };
}

/** Changes `from` to `from + count - 1`. */
export function churnChanges(seed: number, from: number, count: number): ChurnChange[] {
  return Array.from({ length: count }, (_, i) => churnChange(seed, from + i));
}

/** The candidate a change lands on, or undefined when there is none. */
export function pickOf<T>(candidates: readonly T[], change: Pick<ChurnChange, 'pick'>): T | undefined {
  return candidates[Math.floor(change.pick * candidates.length)];
}

const EDIT_MARK = ' · ';
const PHRASES = [
  'Renovated this season',
  'New mattresses',
  'Quieter rooms at the back',
  'Late check-out on request',
  'Bicycles to borrow',
  'Breakfast served until 11',
];

/** A text edited by a change: what an earlier change added is replaced, so texts never grow. */
export function churnedText(text: string, change: Pick<ChurnChange, 'number' | 'variant'>): string {
  const cut = text.indexOf(EDIT_MARK);
  const base = cut === -1 ? text : text.slice(0, cut);
  return `${base}${EDIT_MARK}${PHRASES[change.variant % PHRASES.length]} (${change.number})`;
}

/** A night's price for two at `percent` of the plan's default, rounded to a hundred minor units. */
export function churnedPrice(defaultDouble: number, percent: number): number {
  return Math.max(100, Math.round((defaultDouble * percent) / 10_000) * 100);
}

/** Rates per counted kind, for the workflow's progress and the operator's status. */
export type ChurnCounts = Partial<Record<ChurnKind, number>>;

export function addCounts(into: ChurnCounts, more: ChurnCounts): ChurnCounts {
  const sum: ChurnCounts = { ...into };
  for (const kind of CHURN_KINDS) if (more[kind]) sum[kind] = (sum[kind] ?? 0) + more[kind];
  return sum;
}
