import { z } from 'zod';
import { Ref } from '../../domain/catalogue/source.ts';
import { GuestInput } from '../../domain/guests.ts';
import { INTEGRATION_SCOPES, type IntegrationScope } from '../../domain/integration-tokens.ts';
import { toInstant } from '../../domain/time.ts';
import * as integration from '../../services/integration.ts';
import type { InstallationWithOrganization, StoredGuest } from '../../services/integration.ts';
import { defineOperation } from '../operations.ts';
import { ReadBackInstant } from '../read-back.ts';
import { wellFormedFields } from '../validation.ts';
import { Installation, IssuedToken, PlatformGuest } from './records.ts';

/**
 * The platform's side of the integration interface: it installs apps for an organization, sets
 * their status, issues their tokens, and writes the organizations' guests.
 */

const tags = ['Platform'];
const RefParams = z.object({ ref: Ref }).strict();
const IdParams = z.object({ id: z.uuid() }).strict();
const Scopes = z.array(z.enum(INTEGRATION_SCOPES));
const InstallationStatus = z.enum(['active', 'disabled', 'error']);

const InstallationInput = z
  .object({
    app: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
        "the app's identifier is 1-64 characters: letters, digits, `.`, `_`, `:` and `-`",
      ),
    scopes: Scopes.min(1, 'grant at least one scope'),
  })
  .strict();

function presentInstallation(installation: InstallationWithOrganization): z.output<typeof Installation> {
  return {
    id: installation.id,
    organization: installation.organization.ref,
    app: installation.app,
    // Stored as text, written only through `Scopes` (an installation's write and its tokens').
    scopes: installation.scopes as IntegrationScope[],
    status: installation.status,
    created_at: toInstant(installation.createdAt),
    updated_at: toInstant(installation.updatedAt),
  };
}

function presentGuest(guest: StoredGuest): z.output<typeof PlatformGuest> {
  return {
    ref: guest.ref,
    id: guest.id,
    organization: guest.organization.ref,
    first_name: guest.firstName,
    last_name: guest.lastName,
    email: guest.email,
    phone: guest.phone,
    created_at: toInstant(guest.createdAt),
    updated_at: toInstant(guest.updatedAt),
  };
}

export const postInstallation = defineOperation({
  operationId: 'postInstallation',
  method: 'post',
  path: '/organizations/{ref}/installations',
  summary: 'Install an app for an organization',
  tags,
  scopes: null,
  description:
    'Answers `{id, app, scopes, status: active}`; an organization holds one installation per app (409 `installation_exists`).',
  params: RefParams,
  body: InstallationInput,
  responses: { 201: { description: 'The installation', schema: Installation } },
  problems: ['invalid_parameters', 'platform_token_invalid', 'not_found', 'installation_exists'],
  handler: async ({ params, body, deps }) => ({
    status: 201,
    body: presentInstallation(await integration.createInstallation(deps, params.ref, body)),
  }),
});

export const getInstallation = defineOperation({
  operationId: 'getInstallation',
  method: 'get',
  path: '/installations/{id}',
  summary: 'An installation',
  tags,
  scopes: null,
  params: IdParams,
  responses: { 200: { description: 'The installation', schema: Installation } },
  problems: ['invalid_parameters', 'platform_token_invalid', 'not_found'],
  handler: async ({ params, deps }) => ({
    body: presentInstallation(await integration.getInstallation(deps, params.id)),
  }),
});

export const patchInstallation = defineOperation({
  operationId: 'patchInstallation',
  method: 'patch',
  path: '/installations/{id}',
  summary: "Set an installation's status",
  tags,
  scopes: null,
  description:
    '`active`, `disabled` or `error`; a token of an installation that is not active is refused with 403 from its next request.',
  params: IdParams,
  body: z.object({ status: InstallationStatus }).strict(),
  responses: { 200: { description: 'The installation', schema: Installation } },
  problems: ['invalid_parameters', 'platform_token_invalid', 'not_found'],
  handler: async ({ params, body, deps }) => ({
    body: presentInstallation(await integration.setInstallationStatus(deps, params.id, body.status)),
  }),
});

export const postInstallationToken = defineOperation({
  operationId: 'postInstallationToken',
  method: 'post',
  path: '/installations/{id}/token',
  summary: "Issue the installation's token, revoking the previous one",
  tags,
  scopes: null,
  description:
    "`{token, scopes}`: the token appears only in this answer and is stored as a hash. `scopes` is a subset of the installation's, all of them when absent.",
  params: IdParams,
  body: z.object({ scopes: Scopes.optional() }).strict(),
  responses: { 201: { description: 'The new token', schema: IssuedToken } },
  problems: ['invalid_parameters', 'platform_token_invalid', 'not_found'],
  handler: async ({ params, body, deps }) => ({
    status: 201,
    body: await integration.issueIntegrationToken(deps, params.id, body.scopes),
    headers: { 'Cache-Control': 'no-store' },
  }),
});

export const putGuest = defineOperation({
  operationId: 'putGuest',
  method: 'put',
  path: '/guests/{ref}',
  summary: 'Create or replace a guest',
  tags,
  scopes: null,
  readBack: {
    readOnly: { id: z.uuid(), created_at: ReadBackInstant, updated_at: ReadBackInstant },
    identity: { field: 'ref', param: 'ref' },
  },
  params: RefParams,
  body: GuestInput,
  laterRules: ({ body, deps }) =>
    integration.organizationRuleErrors(deps, wellFormedFields(GuestInput, body).organization),
  responses: {
    200: { description: 'The guest', schema: PlatformGuest },
    201: { description: 'The guest (created)', schema: PlatformGuest },
  },
  problems: ['invalid_parameters', 'platform_token_invalid'],
  handler: async ({ params, body, deps }) => {
    const { created, guest } = await integration.putGuest(deps, params.ref, body);
    return { status: created ? 201 : 200, body: presentGuest(guest), headers: { 'Cache-Control': 'no-store' } };
  },
});

export const getGuest = defineOperation({
  operationId: 'getGuest',
  method: 'get',
  path: '/guests/{ref}',
  summary: 'A guest as stored',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 200: { description: 'The guest', schema: PlatformGuest } },
  problems: ['invalid_parameters', 'platform_token_invalid', 'not_found'],
  handler: async ({ params, deps }) => ({
    body: presentGuest(await integration.getGuest(deps, params.ref)),
    headers: { 'Cache-Control': 'no-store' },
  }),
});

export const deleteGuest = defineOperation({
  operationId: 'deleteGuest',
  method: 'delete',
  path: '/guests/{ref}',
  summary: 'Remove a guest: gone from every later answer',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 204: { description: 'Removed' } },
  problems: ['invalid_parameters', 'platform_token_invalid', 'not_found'],
  handler: async ({ params, deps }) => {
    await integration.deleteGuest(deps, params.ref);
    return { status: 204 };
  },
});

export const integrationPlatformOperations = [
  postInstallation,
  getInstallation,
  patchInstallation,
  postInstallationToken,
  putGuest,
  getGuest,
  deleteGuest,
];
