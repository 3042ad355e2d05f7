import type { EntityManager } from '@mikro-orm/postgresql';
import { channelIdsByName } from '../db/catalogue/distribution.ts';
import { countPropertiesAtLocation, findSource, idOfRef, locationOfRef } from '../db/catalogue/sources.ts';
import {
  propertySourceLanguageErrors,
  propertyTextErrors,
  unknownReference,
  type PropertyTexts,
} from '../domain/catalogue/source-rules.ts';
import type { LocationInput } from '../domain/catalogue/source.ts';
import type { ParameterError } from '../domain/problems.ts';
import {
  locationOrganizationErrors,
  ownerOrganizationErrors,
  propertyOrganizationErrors,
} from './catalogue-organizations.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The rules of the platform's catalogue writes beyond each field's shape: the records a write names
 * exist, are of one organization, and a location's country stays while it has properties. Each
 * reads only what of its input is well formed (a field left out is not checked), so one function
 * checks a write its schema took, inside the write's transaction, and one its schema refused,
 * before the refusal is answered (the operations' `laterRules`): one refusal names every failed
 * rule. Plain reads: they take no lock of their own.
 */

type Deps = Pick<ServiceDeps, 'orm'>;

const idOf = (em: EntityManager, kind: 'organization' | 'owner', ref: string | undefined) =>
  ref === undefined ? Promise.resolve(null) : idOfRef(em, kind, ref);

/** An owner names its organization; moving it must not leave another organization's records naming it. */
export async function ownerReferences(
  em: EntityManager,
  ownerId: string | null,
  input: { organization?: string | undefined },
): Promise<{ organizationId: string | null; errors: ParameterError[] }> {
  const organizationId = await idOf(em, 'organization', input.organization);
  if (input.organization === undefined) return { organizationId, errors: [] };
  if (!organizationId)
    return { organizationId, errors: [unknownReference('/organization', 'organization', input.organization)] };
  return { organizationId, errors: await ownerOrganizationErrors(em, { ownerId, organizationId }) };
}

/**
 * A location names its organization and owner, of one organization (with the owners of its
 * properties); its country cannot change once it has properties (their texts and legal data follow it).
 */
export async function locationReferences(
  em: EntityManager,
  existing: { id: string; content: unknown } | null,
  input: { organization?: string | undefined; owner?: string | undefined; country?: string | undefined },
): Promise<{ organizationId: string | null; ownerId: string | null; errors: ParameterError[] }> {
  const organizationId = await idOf(em, 'organization', input.organization);
  const ownerId = await idOf(em, 'owner', input.owner);
  const errors = [
    ...(input.organization === undefined || organizationId
      ? []
      : [unknownReference('/organization', 'organization', input.organization)]),
    ...(input.owner === undefined || ownerId ? [] : [unknownReference('/owner', 'owner', input.owner)]),
  ];
  const previousCountry = (existing?.content as LocationInput | undefined)?.address.country;
  if (
    existing &&
    input.country !== undefined &&
    previousCountry !== input.country &&
    (await countPropertiesAtLocation(em, existing.id)) > 0
  ) {
    errors.push({
      detail: 'the country of a location with properties cannot change: their texts and legal data follow it',
      code: 'immutable',
      pointer: '/address/country',
    });
  }
  if (organizationId && ownerId)
    errors.push(
      ...(await locationOrganizationErrors(em, { organizationId, ownerId, locationId: existing?.id ?? null })),
    );
  return { organizationId, ownerId, errors };
}

/**
 * What a property's write needs of other records: its location (whose country gives the source
 * language its texts must hold) and owner, of one organization.
 */
export async function propertyReferences(
  em: EntityManager,
  input: PropertyTexts & { location?: string | undefined; owner?: string | undefined },
) {
  const location = input.location === undefined ? null : await locationOfRef(em, input.location);
  const owner = await idOf(em, 'owner', input.owner);
  const errors = [
    ...(location
      ? propertySourceLanguageErrors(input, location.content.address.country)
      : input.location === undefined
        ? []
        : [unknownReference('/location', 'location', input.location)]),
    ...(input.owner === undefined || owner ? [] : [unknownReference('/owner', 'owner', input.owner)]),
    ...(location && owner ? await propertyOrganizationErrors(em, { locationId: location.id, ownerId: owner }) : []),
  ];
  return { location, owner, errors };
}

/** Each channel a distribution names exists, at its pointer. */
export async function unknownChannelErrors(
  em: EntityManager,
  channels: readonly { index: number; name: string }[],
): Promise<{ known: Map<string, string>; errors: ParameterError[] }> {
  const known = await channelIdsByName(em, [...new Set(channels.map((channel) => channel.name))]);
  const errors = channels.flatMap(({ index, name }) =>
    known.has(name)
      ? []
      : [{ detail: `no channel named "${name}"`, code: 'unknown_reference', pointer: `/channels/${index}` }],
  );
  return { known, errors };
}

/** The owner's rules for a write its schema refused; `ref` when the path's is well formed. */
export async function ownerRuleErrors(
  deps: Deps,
  ref: string | undefined,
  input: { organization?: string | undefined },
): Promise<ParameterError[]> {
  const em = deps.orm.em.fork();
  const ownerId = ref === undefined ? null : await idOfRef(em, 'owner', ref);
  return (await ownerReferences(em, ownerId, input)).errors;
}

/** The location's rules for a write its schema refused. */
export async function locationRuleErrors(
  deps: Deps,
  ref: string | undefined,
  input: { organization?: string | undefined; owner?: string | undefined; country?: string | undefined },
): Promise<ParameterError[]> {
  const em = deps.orm.em.fork();
  const existing = ref === undefined ? null : await findSource(em, 'location', ref);
  return (await locationReferences(em, existing, input)).errors;
}

/** The property's text rules and references, for a write its schema refused. */
export async function propertyRuleErrors(
  deps: Deps,
  input: PropertyTexts & { location?: string | undefined; owner?: string | undefined },
): Promise<ParameterError[]> {
  return [...propertyTextErrors(input, null), ...(await propertyReferences(deps.orm.em.fork(), input)).errors];
}

/** The channels a distribution names, for a write its schema refused. */
export async function distributionRuleErrors(
  deps: Deps,
  channels: readonly { index: number; name: string }[],
): Promise<ParameterError[]> {
  return (await unknownChannelErrors(deps.orm.em.fork(), channels)).errors;
}
