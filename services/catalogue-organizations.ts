import type { EntityManager } from '@mikro-orm/postgresql';
import {
  countOwnerRecordsElsewhere,
  countPropertiesOfOwnersElsewhere,
  organizationOf,
} from '../db/catalogue/organizations.ts';
import type { ParameterError } from '../domain/problems.ts';

/**
 * The rule that an owner, its locations and its properties are of one organization, for each
 * catalogue write that could break it (refused with `organization_mismatch`).
 */

const mismatch = (pointer: string, detail: string): ParameterError => ({
  detail,
  code: 'organization_mismatch',
  pointer,
});

/** A location's owner must be of the location's organization, and so must the owners of the properties already there. */
export async function locationOrganizationErrors(
  tx: EntityManager,
  input: { organizationId: string; ownerId: string; locationId: string | null },
): Promise<ParameterError[]> {
  const errors: ParameterError[] = [];
  if ((await organizationOf(tx, 'owner', input.ownerId)) !== input.organizationId)
    errors.push(mismatch('/owner', 'the owner is of another organization than the location'));
  if (input.locationId && (await countPropertiesOfOwnersElsewhere(tx, input.locationId, input.organizationId)) > 0) {
    errors.push(mismatch('/organization', 'properties at this location name owners of another organization'));
  }
  return errors;
}

/** A property's owner must be of its location's organization. */
export async function propertyOrganizationErrors(
  em: EntityManager,
  input: { locationId: string; ownerId: string },
): Promise<ParameterError[]> {
  const [location, owner] = [
    await organizationOf(em, 'location', input.locationId),
    await organizationOf(em, 'owner', input.ownerId),
  ];
  return location === owner
    ? []
    : [mismatch('/owner', "the owner is of another organization than the property's location")];
}

/** An owner moving to another organization must not leave locations or properties naming it behind. */
export async function ownerOrganizationErrors(
  tx: EntityManager,
  input: { ownerId: string | null; organizationId: string },
): Promise<ParameterError[]> {
  if (!input.ownerId || (await countOwnerRecordsElsewhere(tx, input.ownerId, input.organizationId)) === 0) return [];
  return [mismatch('/organization', 'locations or properties of another organization name this owner')];
}
