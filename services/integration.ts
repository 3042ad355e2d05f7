import { randomUUID } from 'node:crypto';
import {
  addIntegrationToken,
  changeInstallationStatus,
  deleteGuest as deleteGuestRow,
  findGuestByRef,
  findInstallation,
  findLiveToken,
  findOrganizationByRef,
  findTokenBySecret,
  hashIntegrationToken,
  insertInstallation,
  installationOfAppExists,
  listInstallations,
  lockInstallation,
  newestGuests,
  revokeTokensOf,
  upsertGuest,
  type Guest,
  type GuestWithOrganization,
  type InstallationStatus,
  type InstallationWithOrganization,
  type IntegrationToken,
  type Organization,
  type TokenWithInstallation,
} from '../db/integration.ts';
import type { GuestInput } from '../domain/guests.ts';
import { generateIntegrationToken, type IntegrationScope } from '../domain/integration-tokens.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

/**
 * The integration interface's records: the apps an organization installs, the one live token of
 * each installation, and the organizations' guests. Tokens are returned once and stored as
 * SHA-256; guests are personal data, so no failure of theirs carries their fields into a log.
 */

type Deps = Pick<ServiceDeps, 'orm' | 'clock'>;

/** The most guests one answer of the guest list carries (the contract's limit). */
export const GUEST_LIST_LIMIT = 50;

export type { InstallationStatus, InstallationWithOrganization };

/**
 * Runs a guest statement so that an unexpected failure reaches the log without its message: a
 * database error's message can quote the row, and a guest row is personal data. The cause is kept
 * for the error handler's "is the database reachable" check, which reads codes, not text.
 */
async function withoutPersonalData<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProblemError) throw error;
    const code = (error as { code?: unknown }).code;
    throw new Error(`${what} failed${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error });
  }
}

const unknownOrganization = (ref: string, pointer: string): ParameterError => ({
  detail: `no organization with reference "${ref}"`,
  code: 'unknown_reference',
  pointer,
});

async function organizationOf(deps: Deps, ref: string, pointer: string | null): Promise<Organization> {
  const organization = await findOrganizationByRef(deps.orm.em.fork(), ref);
  if (organization) return organization;
  if (pointer === null) throw new ProblemError('not_found');
  throw new ProblemError('invalid_parameters', { errors: [unknownOrganization(ref, pointer)] });
}

/**
 * For a write whose shape was refused: the organization it names at `/organization` (a guest, a
 * host link), when well formed, is one the platform wrote.
 */
export async function organizationRuleErrors(deps: Deps, ref: string | undefined): Promise<ParameterError[]> {
  if (ref === undefined || (await findOrganizationByRef(deps.orm.em.fork(), ref))) return [];
  return [unknownOrganization(ref, '/organization')];
}

export async function createInstallation(
  deps: Deps,
  organizationRef: string,
  input: { app: string; scopes: IntegrationScope[] },
): Promise<InstallationWithOrganization> {
  const organization = await organizationOf(deps, organizationRef, null);
  const em = deps.orm.em.fork();
  if (await installationOfAppExists(em, organization.id, input.app)) {
    throw new ProblemError('installation_exists', {
      detail: `"${organizationRef}" already has an installation of "${input.app}"`,
    });
  }
  const now = deps.clock.now();
  try {
    return await insertInstallation(em, {
      id: randomUUID(),
      organization,
      app: input.app,
      scopes: [...new Set(input.scopes)],
      status: 'active',
      createdAt: now,
      updatedAt: now,
    });
  } catch (error) {
    // A concurrent install of the same app won the unique constraint.
    if ((error as { code?: unknown }).code === '23505') throw new ProblemError('installation_exists');
    throw error;
  }
}

export async function getInstallation(deps: Deps, id: string): Promise<InstallationWithOrganization> {
  const found = await findInstallation(deps.orm.em.fork(), id);
  if (!found) throw new ProblemError('not_found');
  return found;
}

/** Takes effect on the installation's token at its next request. */
export async function setInstallationStatus(
  deps: Deps,
  id: string,
  status: InstallationStatus,
): Promise<InstallationWithOrganization> {
  const installation = await changeInstallationStatus(deps.orm.em.fork(), id, status, deps.clock.now());
  if (!installation) throw new ProblemError('not_found');
  return installation;
}

/**
 * A new token for the installation, with the scopes asked for (a subset of the installation's;
 * all of them when none are named). The installation's row lock orders issuers, and the previous
 * token is revoked in the same transaction: from the commit on, only the new one is accepted.
 */
export async function issueIntegrationToken(
  deps: Deps & Pick<ServiceDeps, 'config'>,
  installationId: string,
  scopes?: IntegrationScope[],
): Promise<{ token: string; scopes: IntegrationScope[] }> {
  const secret = generateIntegrationToken(deps.config.environment);
  return deps.orm.em.fork().transactional(async (em) => {
    const installation = await lockInstallation(em, installationId);
    if (!installation) throw new ProblemError('not_found');
    const granted = installation.scopes as IntegrationScope[];
    const asked = scopes === undefined ? granted : [...new Set(scopes)];
    const errors = asked.flatMap((scope, i) =>
      granted.includes(scope)
        ? []
        : [{ detail: `the installation was not granted "${scope}"`, code: 'not_granted', pointer: `/scopes/${i}` }],
    );
    if (errors.length > 0) throw new ProblemError('invalid_parameters', { errors });
    const now = deps.clock.now();
    await revokeTokensOf(em, installation.id, now);
    addIntegrationToken(em, {
      id: randomUUID(),
      installationId: installation.id,
      secretHash: hashIntegrationToken(secret),
      last4: secret.slice(-4),
      scopes: asked,
      createdAt: now,
    });
    await em.flush();
    return { token: secret, scopes: asked };
  });
}

/** The operator's revocation: the installation's live token stops working at once. */
export async function revokeIntegrationToken(
  deps: Deps,
  installationId: string,
): Promise<{ installation: InstallationWithOrganization; revoked: number }> {
  const em = deps.orm.em.fork();
  const installation = await findInstallation(em, installationId);
  if (!installation) throw new Refusal(`no installation with id "${installationId}"`);
  return { installation, revoked: await revokeTokensOf(em, installation.id, deps.clock.now()) };
}

export async function installationsWithTokens(
  deps: Deps,
  organizationRef?: string,
): Promise<{ installation: InstallationWithOrganization; token: IntegrationToken | null }[]> {
  const em = deps.orm.em.fork();
  const installations = await listInstallations(em, organizationRef);
  return Promise.all(
    installations.map(async (installation) => ({ installation, token: await findLiveToken(em, installation.id) })),
  );
}

export type TokenCheck =
  | { outcome: 'unknown' }
  | { outcome: 'revoked' }
  | { outcome: 'disabled'; installation: InstallationWithOrganization }
  | { outcome: 'error'; installation: InstallationWithOrganization }
  | { outcome: 'accepted'; installation: InstallationWithOrganization; scopes: IntegrationScope[] };

/** What a well-formed token is worth: unknown, revoked, of an installation not active, or accepted with its scopes. */
export async function checkIntegrationToken(deps: Deps, token: string): Promise<TokenCheck> {
  const found: TokenWithInstallation | null = await findTokenBySecret(deps.orm.em.fork(), token);
  if (!found) return { outcome: 'unknown' };
  if (found.revokedAt) return { outcome: 'revoked' };
  const { installation } = found;
  if (installation.status === 'disabled' || installation.status === 'error')
    return { outcome: installation.status, installation };
  return { outcome: 'accepted', installation, scopes: found.scopes as IntegrationScope[] };
}

export type StoredGuest = GuestWithOrganization;

/** Creates or replaces a guest under the platform's reference; an identical write changes nothing. */
export async function putGuest(
  deps: Deps,
  ref: string,
  input: GuestInput,
): Promise<{ created: boolean; guest: StoredGuest }> {
  const organization = await organizationOf(deps, input.organization, '/organization');
  return withoutPersonalData('guest write', async () => {
    const em = deps.orm.em.fork();
    const outcome = await upsertGuest(em, {
      id: randomUUID(),
      ref,
      organizationId: organization.id,
      firstName: input.first_name,
      lastName: input.last_name,
      email: input.email,
      phone: input.phone,
      now: deps.clock.now(),
    });
    return { created: outcome?.created ?? false, guest: (await findGuestByRef(em, ref))! };
  });
}

export async function getGuest(deps: Deps, ref: string): Promise<StoredGuest> {
  const guest = await withoutPersonalData('guest read', () => findGuestByRef(deps.orm.em.fork(), ref));
  if (!guest) throw new ProblemError('not_found');
  return guest;
}

/** Deletes the row: the guest is gone from every later answer, and nothing of it is kept. */
export async function deleteGuest(deps: Deps, ref: string): Promise<void> {
  await withoutPersonalData('guest delete', async () => {
    const em = deps.orm.em.fork();
    const guest = await findGuestByRef(em, ref);
    if (!guest) throw new ProblemError('not_found');
    await deleteGuestRow(em, guest.id);
  });
}

/** The organization's newest guests, at most the contract's 50. */
export function guestsOfOrganization(deps: Deps, organizationId: string): Promise<Guest[]> {
  return withoutPersonalData('guest list', () => newestGuests(deps.orm.em.fork(), organizationId, GUEST_LIST_LIMIT));
}
