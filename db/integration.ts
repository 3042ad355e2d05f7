import { createHash, timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GuestSchema, InstallationSchema, IntegrationTokenSchema, OrganizationSchema } from './entities/index.ts';
import {
  guestRecord,
  installationRecord,
  installationWithOrganization,
  organizationRecord,
  tokenRecord,
  type Guest,
  type GuestWithOrganization,
  type Installation,
  type InstallationStatus,
  type InstallationWithOrganization,
  type IntegrationToken,
  type Organization,
  type TokenWithInstallation,
} from './integration-records.ts';

export type * from './integration-records.ts';

/** Installations, their tokens and the organizations' guests: every statement of the integration interface. */

export function hashIntegrationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function findOrganizationByRef(em: EntityManager, ref: string): Promise<Organization | null> {
  const row = await em.findOne(OrganizationSchema, { ref });
  return row && organizationRecord(row);
}

export async function findInstallation(em: EntityManager, id: string): Promise<InstallationWithOrganization | null> {
  const row = await em.findOne(InstallationSchema, { id }, { populate: ['organization'] });
  return row && installationWithOrganization(row);
}

/** Locks the installation's row for the rest of the transaction: token issuers queue on it. */
export async function lockInstallation(em: EntityManager, id: string): Promise<Installation | null> {
  const row = await em.findOne(InstallationSchema, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  return row && installationRecord(row);
}

export async function installationOfAppExists(
  em: EntityManager,
  organizationId: string,
  app: string,
): Promise<boolean> {
  return (await em.count(InstallationSchema, { organization: organizationId, app })) > 0;
}

/** Inserts the installation; a second of the app for the organization fails the unique constraint (23505). */
export async function insertInstallation(
  em: EntityManager,
  installation: Omit<Installation, 'organizationId'> & { organization: Organization },
): Promise<InstallationWithOrganization> {
  const { organization, ...fields } = installation;
  em.create(InstallationSchema, { ...fields, organization: organization.id });
  await em.flush();
  return { ...fields, organizationId: organization.id, organization };
}

/** Sets the installation's status (and `updated_at`) unless it has it; the installation as it is now. */
export async function changeInstallationStatus(
  em: EntityManager,
  id: string,
  status: InstallationStatus,
  now: Date,
): Promise<InstallationWithOrganization | null> {
  const row = await em.findOne(InstallationSchema, { id }, { populate: ['organization'] });
  if (!row) return null;
  if (row.status !== status) {
    row.status = status;
    row.updatedAt = now;
    await em.flush();
  }
  return installationWithOrganization(row);
}

export async function listInstallations(
  em: EntityManager,
  organizationRef?: string,
): Promise<InstallationWithOrganization[]> {
  const rows = await em.find(InstallationSchema, organizationRef ? { organization: { ref: organizationRef } } : {}, {
    populate: ['organization'],
    orderBy: { createdAt: 'asc', id: 'asc' },
  });
  return rows.map(installationWithOrganization);
}

/** The installation's live token, if any. */
export async function findLiveToken(em: EntityManager, installationId: string): Promise<IntegrationToken | null> {
  const row = await em.findOne(IntegrationTokenSchema, { installation: installationId, revokedAt: null });
  return row && tokenRecord(row);
}

/** Revokes every live token of the installation; the number revoked. */
export function revokeTokensOf(em: EntityManager, installationId: string, now: Date): Promise<number> {
  return em.nativeUpdate(IntegrationTokenSchema, { installation: installationId, revokedAt: null }, { revokedAt: now });
}

/** Adds a token to the unit of work; it is written by the caller's flush or transaction. */
export function addIntegrationToken(em: EntityManager, token: Omit<IntegrationToken, 'revokedAt'>): IntegrationToken {
  const { installationId, ...fields } = token;
  return tokenRecord(em.create(IntegrationTokenSchema, { ...fields, installation: installationId, revokedAt: null }));
}

/** The token whose hash matches, with its installation; the final comparison is constant-time. */
export async function findTokenBySecret(em: EntityManager, token: string): Promise<TokenWithInstallation | null> {
  const hash = hashIntegrationToken(token);
  const found = await em.findOne(
    IntegrationTokenSchema,
    { secretHash: hash },
    { populate: ['installation', 'installation.organization'] },
  );
  if (!found || !timingSafeEqual(Buffer.from(found.secretHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return { ...tokenRecord(found), installation: installationWithOrganization(found.installation) };
}

export async function findGuestByRef(em: EntityManager, ref: string): Promise<GuestWithOrganization | null> {
  const row = await em.findOne(GuestSchema, { ref }, { populate: ['organization'] });
  return row && { ...guestRecord(row), organization: organizationRecord(row.organization) };
}

/** What a guest write stores: the platform's fields, under the reference, for the organization. */
export type GuestWrite = Omit<Guest, 'createdAt' | 'updatedAt'> & { now: Date };

/**
 * Inserts or replaces the guest under its reference in one statement, so concurrent writes of a
 * new reference cannot both insert. An identical write updates nothing (`updated_at` stays).
 * Answers whether the row was created, or null when nothing changed.
 */
export async function upsertGuest(em: EntityManager, guest: GuestWrite): Promise<{ created: boolean } | null> {
  const [result] = await em.execute<{ created: boolean }[]>(
    `insert into guest (id, ref, organization_id, first_name, last_name, email, phone, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (ref) do update set organization_id = excluded.organization_id, first_name = excluded.first_name,
       last_name = excluded.last_name, email = excluded.email, phone = excluded.phone, updated_at = excluded.updated_at
     where (guest.organization_id, guest.first_name, guest.last_name, guest.email, guest.phone)
       is distinct from (excluded.organization_id, excluded.first_name, excluded.last_name, excluded.email, excluded.phone)
     returning (xmax = 0) as created`,
    [
      guest.id,
      guest.ref,
      guest.organizationId,
      guest.firstName,
      guest.lastName,
      guest.email,
      guest.phone,
      guest.now,
      guest.now,
    ],
  );
  return result ?? null;
}

export async function deleteGuest(em: EntityManager, id: string): Promise<void> {
  await em.nativeDelete(GuestSchema, { id });
}

/** The organization's newest guests: by creation, then by insertion order for equal instants. */
export async function newestGuests(em: EntityManager, organizationId: string, limit: number): Promise<Guest[]> {
  const rows = await em.find(
    GuestSchema,
    { organization: organizationId },
    { orderBy: { createdAt: 'desc', seq: 'desc' }, limit },
  );
  return rows.map(guestRecord);
}

/** Guests and installations keep an organization in use. */
export async function countIntegrationMembers(em: EntityManager, organizationId: string): Promise<number> {
  return (
    (await em.count(GuestSchema, { organization: organizationId })) +
    (await em.count(InstallationSchema, { organization: organizationId }))
  );
}
