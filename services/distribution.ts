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

/**
 * Makes `input.channels` the property's whole distribution and re-projects it for every channel
 * it enters or leaves; the same choice again changes nothing.
 */
export function putDistribution(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock' | 'secrets'>,
  ref: string,
  input: DistributionInput,
): Promise<Distribution> {
  return writeAndNotify(deps, async (tx) => {
    const property = await findSource(tx, 'property', ref, { lock: true });
    if (!property) throw new ProblemError('not_found');
    const { known, errors } = await unknownChannelErrors(
      tx,
      input.channels.map((name, index) => ({ index, name })),
    );
    if (errors.length > 0) throw invalidParameters(errors);
    const before = await distributionOf(tx, property.id);
    const wanted = [...input.channels].sort();
    if (canonicalJson(before) !== canonicalJson(wanted)) {
      await setDistribution(tx, property.id, [...known.values()], deps.clock.now());
      await reproject(tx, { properties: [property.id] }, projectorDeps(deps));
    }
    return { property: ref, channels: wanted };
  });
}

export async function getDistribution(deps: Pick<ServiceDeps, 'orm'>, ref: string): Promise<Distribution> {
  const em = deps.orm.em.fork();
  const id = await idOfRef(em, 'property', ref);
  if (!id) throw new ProblemError('not_found');
  return { property: ref, channels: await distributionOf(em, id) };
}
