import { createHash, timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  GuestSchema,
  InstallationSchema,
  IntegrationTokenSchema,
  OrganizationSchema,
  type Guest,
  type Installation,
  type IntegrationToken,
  type Organization,
} from './entities/index.ts';

/** Installations, their tokens and the organizations' guests: every statement of the integration interface. */

export function hashIntegrationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function findOrganizationByRef(em: EntityManager, ref: string): Promise<Organization | null> {
  return em.findOne(OrganizationSchema, { ref });
}

export function findInstallation(
  em: EntityManager,
  id: string,
): Promise<(Installation & { organization: Organization }) | null> {
  return em.findOne(InstallationSchema, { id }, { populate: ['organization'] });
}

/** Locks the installation's row for the rest of the transaction: token issuers queue on it. */
export function lockInstallation(em: EntityManager, id: string): Promise<Installation | null> {
  return em.findOne(InstallationSchema, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

export function findInstallationOfApp(
  em: EntityManager,
  organization: Organization,
  app: string,
): Promise<Installation | null> {
  return em.findOne(InstallationSchema, { organization, app });
}

export function addInstallation(
  em: EntityManager,
  row: Omit<Installation, 'organization'> & { organization: Organization },
): Installation {
  return em.create(InstallationSchema, row);
}

export function listInstallations(
  em: EntityManager,
  organizationRef?: string,
): Promise<(Installation & { organization: Organization })[]> {
  return em.find(InstallationSchema, organizationRef ? { organization: { ref: organizationRef } } : {}, {
    populate: ['organization'],
    orderBy: { createdAt: 'asc', id: 'asc' },
  });
}

/** The installation's live token, if any. */
export function findLiveToken(em: EntityManager, installation: Installation): Promise<IntegrationToken | null> {
  return em.findOne(IntegrationTokenSchema, { installation, revokedAt: null });
}

/** Revokes every live token of the installation; the number revoked. */
export function revokeTokensOf(em: EntityManager, installation: Installation, now: Date): Promise<number> {
  return em.nativeUpdate(IntegrationTokenSchema, { installation, revokedAt: null }, { revokedAt: now });
}

export function addIntegrationToken(
  em: EntityManager,
  row: Omit<IntegrationToken, 'revokedAt' | 'installation'> & { installation: Installation },
): IntegrationToken {
  return em.create(IntegrationTokenSchema, { ...row, revokedAt: null });
}

export type TokenWithInstallation = IntegrationToken & { installation: Installation & { organization: Organization } };

/** The token whose hash matches, with its installation; the final comparison is constant-time. */
export async function findTokenBySecret(em: EntityManager, token: string): Promise<TokenWithInstallation | null> {
  const hash = hashIntegrationToken(token);
  const found = await em.findOne(
    IntegrationTokenSchema,
    { secretHash: hash },
    { populate: ['installation', 'installation.organization'] },
  );
  if (!found || !timingSafeEqual(Buffer.from(found.secretHash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return found;
}

export function findGuestByRef(
  em: EntityManager,
  ref: string,
): Promise<(Guest & { organization: Organization }) | null> {
  return em.findOne(GuestSchema, { ref }, { populate: ['organization'] });
}

/** What a guest write stores: the platform's fields, under the reference, for the organization. */
export interface GuestWrite {
  id: string;
  ref: string;
  organizationId: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  now: Date;
}

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
export function newestGuests(em: EntityManager, organizationId: string, limit: number): Promise<Guest[]> {
  return em.find(GuestSchema, { organization: organizationId }, { orderBy: { createdAt: 'desc', seq: 'desc' }, limit });
}

/** Guests and installations keep an organization in use. */
export async function countIntegrationMembers(em: EntityManager, organizationId: string): Promise<number> {
  return (
    (await em.count(GuestSchema, { organization: organizationId })) +
    (await em.count(InstallationSchema, { organization: organizationId }))
  );
}
