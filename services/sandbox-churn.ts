import { churnCandidates, type ChurnCandidate } from '../db/sandbox-churn.ts';
import { AvailabilityBatch, type AvailabilityUpdate } from '../domain/availability/nights.ts';
import { PropertyInput } from '../domain/catalogue/source.ts';
import { ProblemError } from '../domain/problems.ts';
import {
  churnCreatedRef,
  churnedPrice,
  churnedText,
  pickOf,
  type ChurnChange,
  type ChurnCounts,
  type ChurnKind,
} from '../domain/sandbox/churn.ts';
import { planPrices, type PropertyBody } from '../domain/sandbox/property-parts.ts';
import { addDays, localDate } from '../domain/time.ts';
import { postAvailability } from './availability.ts';
import { deleteProperty, getSource, putProperty } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { putDistribution } from './distribution.ts';
import { Refusal } from './refusal.ts';

/**
 * The sandbox churn's changes applied through the services behind the platform's writes (the
 * same validation, transactions, re-projection, events and durable processes), so a channel's
 * sync meets them as it would a host's. Never in production. A change that finds nothing to land
 * on (no certified property left, none withdrawn) or that the platform refuses is skipped and
 * counted, never retried: the next change is another.
 */

export class SandboxChurnOnly extends Refusal {
  constructor() {
    super('the sandbox churn runs only in a sandbox deployment (SVC_ENVIRONMENT=sandbox), never in production');
  }
}

export type ChurnDeps = Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock' | 'secrets'> & {
  environment: 'sandbox' | 'production';
};

export interface ChurnBatch {
  /** The channels churned properties come back to and created ones go to. */
  channels: readonly string[];
  changes: readonly ChurnChange[];
}

export interface ChurnOutcome {
  applied: ChurnCounts;
  skipped: ChurnCounts;
}

type Apply = (
  deps: ChurnDeps,
  change: ChurnChange,
  candidates: ChurnCandidate[],
  channels: readonly string[],
) => Promise<boolean>;

async function propertyOf(deps: ChurnDeps, ref: string): Promise<PropertyBody> {
  return (await getSource(deps, 'property', ref)).content as PropertyBody;
}

/** The change's night range: from the day after tomorrow in UTC, inside every zone's horizon. */
function rangeOf(deps: ChurnDeps, change: ChurnChange, ref: string) {
  const from = addDays(localDate(deps.clock.now(), 'UTC'), 2 + change.offset);
  return { property: ref, from, to: addDays(from, change.nights) };
}

async function nights(deps: ChurnDeps, update: AvailabilityUpdate): Promise<boolean> {
  await postAvailability(deps, AvailabilityBatch.parse({ updates: [update] }));
  return true;
}

async function rewrite(deps: ChurnDeps, ref: string, body: PropertyBody): Promise<boolean> {
  await putProperty(deps, ref, PropertyInput.parse(body));
  return true;
}

const editTexts = (texts: Record<string, string>, change: ChurnChange) =>
  Object.fromEntries(Object.entries(texts).map(([language, text]) => [language, churnedText(text, change)]));

const APPLY: Readonly<Record<ChurnKind, Apply>> = {
  /** One plan's prices over the range, at a share of its defaults. */
  async prices(deps, change, candidates) {
    const ref = pickOf(candidates, change)?.ref;
    if (!ref) return false;
    const property = await propertyOf(deps, ref);
    const plan = property.rate_plans[change.variant % property.rate_plans.length]!;
    const adults = property.capacity.max_adults;
    const double = plan.default_rates?.prices_by_occupancy.find((p) => p.adults === Math.min(2, adults))?.amount;
    if (double === undefined) return false;
    const prices = planPrices(churnedPrice(double, change.percent), adults, plan.child_age_bands ?? []);
    return nights(deps, { ...rangeOf(deps, change, ref), rates: [{ rate_plan: plan.key, ...prices }] });
  },
  /** Units over the range (none, one in four times), and a stay limit. */
  async availability(deps, change, candidates) {
    const ref = pickOf(candidates, change)?.ref;
    if (!ref) return false;
    const { units = 1 } = await propertyOf(deps, ref);
    const available = change.variant % 4 === 0 ? 0 : 1 + (change.variant % units);
    return nights(deps, {
      ...rangeOf(deps, change, ref),
      units_available: available,
      min_stay: 1 + (change.variant % 3),
    });
  },
  /** Its name and description edited in every language it has. */
  async text(deps, change, candidates) {
    const ref = pickOf(candidates, change)?.ref;
    if (!ref) return false;
    const property = await propertyOf(deps, ref);
    return rewrite(deps, ref, {
      ...property,
      description: editTexts(property.description, change),
      name: editTexts(property.name, change),
    });
  },
  /** Withdrawn from one of its channels. */
  async withdraw(deps, change, candidates) {
    const target = pickOf(
      candidates.filter((c) => c.channels.length > 0),
      change,
    );
    if (!target) return false;
    const leaving = target.channels[change.variant % target.channels.length];
    await putDistribution(deps, target.ref, { channels: target.channels.filter((c) => c !== leaving) });
    return true;
  },
  /** One missing a channel comes back to all of them. */
  async restore(deps, change, candidates, channels) {
    const target = pickOf(
      candidates.filter((c) => channels.some((name) => !c.channels.includes(name))),
      change,
    );
    if (!target) return false;
    await putDistribution(deps, target.ref, { channels: [...new Set([...target.channels, ...channels])] });
    return true;
  },
  async delete(deps, change, candidates) {
    const ref = pickOf(candidates, change)?.ref;
    if (!ref) return false;
    await deleteProperty(deps, ref);
    return true;
  },
  /** A new property beside another (its copy, texts edited), distributed to every channel. */
  async create(deps, change, candidates, channels) {
    const ref = pickOf(candidates, change)?.ref;
    if (!ref) return false;
    const property = await propertyOf(deps, ref);
    const created = churnCreatedRef(change.number);
    await rewrite(deps, created, { ...property, name: editTexts(property.name, change) });
    await putDistribution(deps, created, { channels: [...channels] });
    return true;
  },
  /** A Romanian certificate set to end today, local time: it lapses at the next local midnight. */
  async certificate(deps, change, candidates) {
    const ref = pickOf(
      candidates.filter((c) => c.certified),
      change,
    )?.ref;
    if (!ref) return false;
    const property = await propertyOf(deps, ref);
    const classification = property.legal?.classification;
    if (!classification) return false;
    const zone = (await getSource(deps, 'location', property.location)).content.timezone as string;
    const legal = {
      ...property.legal!,
      classification: { ...classification, valid_until: localDate(deps.clock.now(), zone) },
    };
    return rewrite(deps, ref, { ...property, legal });
  },
};

/** Changes under way at once: a batch keeps pace on a busy machine, its writes still few. */
const CHURN_WRITERS = 3;
/** Kinds after which the candidates are read again: they change who the next changes land on. */
const RESHAPING: ReadonlySet<ChurnKind> = new Set(['delete', 'create', 'withdraw', 'restore']);

/**
 * Applies `batch.changes`, `CHURN_WRITERS` at a time in order of start; `done(n)` once the first
 * `n` are all done. A change the platform refuses (a property deleted meanwhile, a rule) is
 * skipped. Refused outside a sandbox deployment.
 */
export async function applySandboxChurn(
  deps: ChurnDeps,
  batch: ChurnBatch,
  done: (applied: number) => void = () => undefined,
): Promise<ChurnOutcome> {
  if (deps.environment !== 'sandbox') throw new SandboxChurnOnly();
  const outcome: ChurnOutcome = { applied: {}, skipped: {} };
  let candidates = await churnCandidates(deps.orm.em.fork());
  const finished = batch.changes.map(() => false);
  let prefix = 0;
  let next = 0;
  const apply = async (change: ChurnChange): Promise<boolean> => {
    try {
      return await APPLY[change.kind](deps, change, candidates, batch.channels);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      deps.log.info('sandbox churn: change refused, skipped', {
        change: change.number,
        kind: change.kind,
        code: error.code,
      });
      return false;
    }
  };
  const writer = async () => {
    while (next < batch.changes.length) {
      const i = next++;
      const change = batch.changes[i]!;
      const applied = await apply(change);
      const counts = applied ? outcome.applied : outcome.skipped;
      counts[change.kind] = (counts[change.kind] ?? 0) + 1;
      if (applied && RESHAPING.has(change.kind)) candidates = await churnCandidates(deps.orm.em.fork());
      finished[i] = true;
      const before = prefix;
      while (prefix < finished.length && finished[prefix]) prefix += 1;
      if (prefix > before) done(prefix);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHURN_WRITERS, batch.changes.length) }, writer));
  return outcome;
}
