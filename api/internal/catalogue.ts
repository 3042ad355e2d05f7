import { z } from 'zod';
import { AvailabilityBatch } from '../../domain/availability/nights.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
  Ref,
} from '../../domain/catalogue/source.ts';
import * as availability from '../../services/availability.ts';
import * as catalogue from '../../services/catalogue.ts';
import { getPropertyWithLegalStatus } from '../../services/certificate-expiry.ts';
import type { SourceWrite } from '../../services/catalogue.ts';
import * as distribution from '../../services/distribution.ts';
import { defineOperation, type OperationResult } from '../operations.ts';
import { ReadBackInstant, type ReadBack } from '../read-back.ts';
import {
  AvailabilityOutcome,
  Distribution,
  LocationRecord,
  OrganizationRecord,
  OwnerRecord,
  PropertyRecord,
  PropertyWithLegalStatus,
  platformRecord,
  type SourceKind,
} from './records.ts';
import { catalogueRules } from './catalogue-rules.ts';
import { hostSessionOperations } from './host-sessions.ts';
import { integrationPlatformOperations } from './integration.ts';
import { listingReadOperations } from './listings.ts';
import { postOwnerConnect } from './owner-connect.ts';
import { vatRateOperations } from './vat-rates.ts';

/**
 * The platform write interface: the property-management platform creates, replaces and deletes
 * the source records and sets distribution. Every write is a PUT or DELETE addressed by the
 * platform's reference, so a repeated write is harmless; it is validated whole before anything
 * is written, and it re-projects every channel's view in the same transaction (services/catalogue.ts).
 */

const RefParams = z.object({ ref: Ref }).strict();

/** What a record's GET adds to what the platform wrote: its `ref` and two instants (see `record`). */
const RECORD: ReadBack = {
  readOnly: { created_at: ReadBackInstant, updated_at: ReadBackInstant },
  identity: { field: 'ref', param: 'ref' },
};
const PROPERTY_RECORD: ReadBack = {
  ...RECORD,
  readOnly: {
    ...RECORD.readOnly,
    legal_status: z
      .record(z.string(), z.unknown())
      .meta({ description: 'Computed on each read from the legal rules.' }),
  },
};

function written<K extends SourceKind>(kind: K, { created, source }: SourceWrite) {
  return { status: created ? 201 : 200, body: platformRecord(kind, source) };
}

const deleted: OperationResult<never> = { status: 204 };

const tags = ['Platform'];
const problems = ['invalid_parameters', 'platform_token_invalid', 'not_found'] as const;
const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  200: { description, schema },
  201: { description: `${description} (created)`, schema },
});

export const putOrganization = defineOperation({
  operationId: 'putOrganization',
  method: 'put',
  path: '/organizations/{ref}',
  summary: 'Create or replace an organization',
  tags,
  scopes: null,
  readBack: RECORD,
  params: RefParams,
  body: OrganizationInput,
  responses: ok('The organization', OrganizationRecord),
  problems: [...problems],
  handler: async ({ params, body, deps }) =>
    written('organization', await catalogue.putOrganization(deps, params.ref, body)),
});

export const putOwner = defineOperation({
  operationId: 'putOwner',
  method: 'put',
  path: '/owners/{ref}',
  summary: 'Create or replace an owner',
  tags,
  scopes: null,
  readBack: RECORD,
  params: RefParams,
  body: OwnerInput,
  laterRules: catalogueRules.owner,
  responses: ok('The owner', OwnerRecord),
  problems: [...problems],
  handler: async ({ params, body, deps }) => written('owner', await catalogue.putOwner(deps, params.ref, body)),
});

export const putLocation = defineOperation({
  operationId: 'putLocation',
  method: 'put',
  path: '/locations/{ref}',
  summary: 'Create or replace a location',
  tags,
  scopes: null,
  readBack: RECORD,
  params: RefParams,
  body: LocationInput,
  laterRules: catalogueRules.location,
  responses: ok('The location', LocationRecord),
  problems: [...problems],
  handler: async ({ params, body, deps }) => written('location', await catalogue.putLocation(deps, params.ref, body)),
});

export const putProperty = defineOperation({
  operationId: 'putProperty',
  method: 'put',
  path: '/properties/{ref}',
  summary: 'Create or replace a property',
  tags,
  scopes: null,
  readBack: PROPERTY_RECORD,
  params: RefParams,
  body: PropertyInput,
  laterRules: catalogueRules.property,
  responses: ok('The property', PropertyRecord),
  problems: [...problems],
  handler: async ({ params, body, deps }) => written('property', await catalogue.putProperty(deps, params.ref, body)),
});

export const deleteOrganization = defineOperation({
  operationId: 'deleteOrganization',
  method: 'delete',
  path: '/organizations/{ref}',
  summary: 'Delete an organization with nothing left in it',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 204: { description: 'Deleted' } },
  problems: [...problems, 'resource_in_use'],
  handler: async ({ params, deps }) => {
    await catalogue.deleteOrganization(deps, params.ref);
    return deleted;
  },
});

export const deleteOwner = defineOperation({
  operationId: 'deleteOwner',
  method: 'delete',
  path: '/owners/{ref}',
  summary: 'Delete an owner no location or property names',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 204: { description: 'Deleted' } },
  problems: [...problems, 'resource_in_use'],
  handler: async ({ params, deps }) => {
    await catalogue.deleteOwner(deps, params.ref);
    return deleted;
  },
});

export const deleteLocation = defineOperation({
  operationId: 'deleteLocation',
  method: 'delete',
  path: '/locations/{ref}',
  summary: 'Delete a location no property names',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 204: { description: 'Deleted' } },
  problems: [...problems, 'resource_in_use'],
  handler: async ({ params, deps }) => {
    await catalogue.deleteLocation(deps, params.ref);
    return deleted;
  },
});

export const deleteProperty = defineOperation({
  operationId: 'deleteProperty',
  method: 'delete',
  path: '/properties/{ref}',
  summary: 'Delete a property: final, a tombstone on every channel that saw it',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 204: { description: 'Deleted' } },
  problems: [...problems],
  handler: async ({ params, deps }) => {
    await catalogue.deleteProperty(deps, params.ref);
    return deleted;
  },
});

export const getOrganization = defineOperation({
  operationId: 'getOrganization',
  method: 'get',
  path: '/organizations/{ref}',
  summary: 'An organization as stored',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 200: { description: 'The organization', schema: OrganizationRecord } },
  problems: [...problems],
  handler: async ({ params, deps }) => ({
    body: platformRecord('organization', await catalogue.getSource(deps, 'organization', params.ref)),
  }),
});
export const getOwner = defineOperation({
  operationId: 'getOwner',
  method: 'get',
  path: '/owners/{ref}',
  summary: 'An owner as stored',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 200: { description: 'The owner', schema: OwnerRecord } },
  problems: [...problems],
  handler: async ({ params, deps }) => ({
    body: platformRecord('owner', await catalogue.getSource(deps, 'owner', params.ref)),
  }),
});
export const getLocation = defineOperation({
  operationId: 'getLocation',
  method: 'get',
  path: '/locations/{ref}',
  summary: 'A location as stored',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 200: { description: 'The location', schema: LocationRecord } },
  problems: [...problems],
  handler: async ({ params, deps }) => ({
    body: platformRecord('location', await catalogue.getSource(deps, 'location', params.ref)),
  }),
});
export const getSourceProperty = defineOperation({
  operationId: 'getSourceProperty',
  method: 'get',
  path: '/properties/{ref}',
  summary: 'A property as stored, with its legal status',
  tags,
  scopes: null,
  description: [
    "The property as the platform wrote it, plus `legal_status` (read-only, computed on the property's today in its location's zone):",
    '`{next_expiry: {on, identifier: {scheme, value, valid_until}, withdraws_from: [channel names]}}`, or `next_expiry: null` when no',
    'dated identifier the legal rules read (the Romanian classification as `ro.classification`, the Italian `it.cin`) will withdraw it.',
    '`on` is the first local date on which the identifier is no longer valid: at that local midnight every channel in',
    '`withdraws_from` (those shown the property now) gets `property.withdrawn`, with its location and owner following. A',
    'renewal written before then moves the date; one written after brings it back as `property.distributed` (same id, higher version).',
  ].join(' '),
  params: RefParams,
  responses: { 200: { description: 'The property', schema: PropertyWithLegalStatus } },
  problems: [...problems],
  handler: async ({ params, deps }) => {
    const { source, legalStatus } = await getPropertyWithLegalStatus(deps, params.ref);
    return { body: { ...platformRecord('property', source), legal_status: legalStatus } };
  },
});

export const putDistribution = defineOperation({
  operationId: 'putDistribution',
  method: 'put',
  path: '/properties/{ref}/distribution',
  summary: "Set the channels a property is distributed to (the host's choice)",
  tags,
  scopes: null,
  readBack: { readOnly: {}, identity: { field: 'property', param: 'ref' } },
  params: RefParams,
  body: DistributionInput,
  laterRules: catalogueRules.distribution,
  responses: { 200: { description: 'The distribution', schema: Distribution } },
  problems: [...problems],
  handler: async ({ params, body, deps }) => ({ body: await distribution.putDistribution(deps, params.ref, body) }),
});

export const getDistribution = defineOperation({
  operationId: 'getDistribution',
  method: 'get',
  path: '/properties/{ref}/distribution',
  summary: 'The channels a property is distributed to',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 200: { description: 'The distribution', schema: Distribution } },
  problems: [...problems],
  handler: async ({ params, deps }) => ({ body: await distribution.getDistribution(deps, params.ref) }),
});

export const postAvailability = defineOperation({
  operationId: 'postAvailability',
  method: 'post',
  path: '/availability',
  summary: 'Bulk availability and price updates',
  description:
    "Up to 1,000 updates, each a property, a range of nights `[from, to)` and the fields to set on those nights (rates per rate plan key). Prices are written whole: `prices_by_occupancy` holds one price for each number of adults from 1 to the property's `capacity.max_adults`, and `child_prices` one price for each of the plan's `child_age_bands` (none on a plan without bands). On a plan that names bands, prices for adults sent without `child_prices` keep each night's own band prices, or take the plan's `default_rates` band prices on a night that holds none; where neither exists the update is refused (`required` at its `child_prices`, naming the first such night). Each broken rule is one `invalid_parameters` entry pointing into the update. Applied together in one transaction, and nothing is written when any update is refused; nights outside a property's horizon are ignored. Each property's changed nights are announced to every channel that sees it as one `availability.updated` event per contiguous range.",
  tags,
  scopes: null,
  body: AvailabilityBatch,
  responses: { 200: { description: 'What changed, per property', schema: AvailabilityOutcome } },
  problems: ['invalid_parameters', 'platform_token_invalid'],
  laterRules: catalogueRules.availability,
  handler: async ({ body, deps }) => ({ body: await availability.postAvailability(deps, body) }),
});

export const INTERNAL_BASE = '/internal/v1';

export const internalOperations = [
  putOrganization,
  getOrganization,
  deleteOrganization,
  putOwner,
  getOwner,
  deleteOwner,
  putLocation,
  getLocation,
  deleteLocation,
  putProperty,
  getSourceProperty,
  deleteProperty,
  putDistribution,
  getDistribution,
  postAvailability,
  postOwnerConnect,
  ...integrationPlatformOperations,
  ...vatRateOperations,
  ...listingReadOperations,
  ...hostSessionOperations,
];
