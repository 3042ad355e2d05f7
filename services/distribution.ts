import type { EntityManager } from '@mikro-orm/postgresql';
import { reproject } from '../db/catalogue/projector.ts';
import { distributionOf, setDistribution } from '../db/catalogue/distribution.ts';
import { findSource, idOfRef } from '../db/catalogue/sources.ts';
import { canonicalJson } from '../domain/catalogue/projection.ts';
import type { DistributionInput } from '../domain/catalogue/source.ts';
import { ProblemError } from '../domain/problems.ts';
import { invalidParameters, projectorDeps } from './catalogue.ts';
import { unknownChannelErrors } from './catalogue-rules.ts';
import type { ServiceDeps } from './deps.ts';
import { writeAndNotify } from './durable-processes.ts';

/** The host's choice of the channels a property goes to. */
export interface Distribution {
  property: string;
  channels: string[];
}

type DistributionDeps = Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock' | 'secrets'>;

/**
 * Makes `input.channels` the property's whole distribution and re-projects it for every channel
 * it enters or leaves; the same choice again changes nothing.
 */
export function putDistribution(deps: DistributionDeps, ref: string, input: DistributionInput): Promise<Distribution> {
  return writeAndNotify(deps, async (tx) => {
    const { distribution, changed } = await storeDistribution(tx, deps, ref, input);
    if (changed) await reproject(tx, { properties: [changed] }, projectorDeps(deps));
    return distribution;
  });
}

/** A property's distribution in a batch refused: its ref and the problem `putDistribution` answers for it. */
export class DistributionRefused extends Error {
  readonly ref: string;
  readonly problem: ProblemError;
  constructor(ref: string, problem: ProblemError) {
    super(`distribution of ${ref}: ${problem.code}`, { cause: problem });
    this.ref = ref;
    this.problem = problem;
  }
}

/**
 * `putDistribution` for many properties in one transaction: each checked and stored as that
 * operation does, in order, then every property whose distribution changed re-projected together,
 * so each channel's log lock is taken once for the batch rather than once per property (the
 * projector's order within one re-projection: the properties by id, each followed by its
 * availability, then their locations and owners). The first property refused refuses the batch
 * (`DistributionRefused`; nothing is written).
 */
export function putDistributions(
  deps: DistributionDeps,
  items: readonly { ref: string; input: DistributionInput }[],
): Promise<Distribution[]> {
  return writeAndNotify(deps, async (tx) => {
    const distributions: Distribution[] = [];
    const changed: string[] = [];
    for (const { ref, input } of items) {
      const stored = await storeDistribution(tx, deps, ref, input).catch((error: unknown) => {
        throw error instanceof ProblemError ? new DistributionRefused(ref, error) : error;
      });
      distributions.push(stored.distribution);
      if (stored.changed) changed.push(stored.changed);
    }
    if (changed.length > 0) await reproject(tx, { properties: changed }, projectorDeps(deps));
    return distributions;
  });
}

/** Checks and stores one property's distribution; answers its id when the distribution changed. */
async function storeDistribution(
  tx: EntityManager,
  deps: Pick<ServiceDeps, 'clock'>,
  ref: string,
  input: DistributionInput,
): Promise<{ distribution: Distribution; changed: string | null }> {
  const property = await findSource(tx, 'property', ref, { lock: true });
  if (!property) throw new ProblemError('not_found');
  const { known, errors } = await unknownChannelErrors(
    tx,
    input.channels.map((name, index) => ({ index, name })),
  );
  if (errors.length > 0) throw invalidParameters(errors);
  const before = await distributionOf(tx, property.id);
  const wanted = [...input.channels].sort();
  const changed = canonicalJson(before) !== canonicalJson(wanted);
  if (changed) await setDistribution(tx, property.id, [...known.values()], deps.clock.now());
  return { distribution: { property: ref, channels: wanted }, changed: changed ? property.id : null };
}

export async function getDistribution(deps: Pick<ServiceDeps, 'orm'>, ref: string): Promise<Distribution> {
  const em = deps.orm.em.fork();
  const id = await idOfRef(em, 'property', ref);
  if (!id) throw new ProblemError('not_found');
  return { property: ref, channels: await distributionOf(em, id) };
}
