import type {
  Guest as GuestEntity,
  Installation as InstallationEntity,
  IntegrationToken as IntegrationTokenEntity,
  Organization as OrganizationEntity,
} from './entities/index.ts';

// The integration interface's rows as db/integration.ts returns them: records, not entities of the
// unit of work; a relation by its id, or the related record where the statement read it.

/** An organization the platform wrote. */
export interface Organization {
  id: string;
  ref: string;
  name: string;
  country: string;
  createdAt: Date;
  updatedAt: Date;
}

export type InstallationStatus = 'active' | 'disabled' | 'error';

/** An app installed by an organization, with the scopes the organization granted it. */
export interface Installation {
  id: string;
  organizationId: string;
  app: string;
  scopes: string[];
  status: InstallationStatus;
  createdAt: Date;
  updatedAt: Date;
}

export interface InstallationWithOrganization extends Installation {
  organization: Organization;
}

/** An installation's token; only the SHA-256 of the token is kept. */
export interface IntegrationToken {
  id: string;
  installationId: string;
  secretHash: string;
  last4: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

export interface TokenWithInstallation extends IntegrationToken {
  installation: InstallationWithOrganization;
}

/** A guest of an organization, written by the platform under its reference. Personal data. */
export interface Guest {
  id: string;
  ref: string;
  organizationId: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface GuestWithOrganization extends Guest {
  organization: Organization;
}

export function organizationRecord(row: OrganizationEntity): Organization {
  return {
    id: row.id,
    ref: row.ref,
    name: row.name,
    country: row.country,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function installationRecord(row: InstallationEntity): Installation {
  return {
    id: row.id,
    organizationId: row.organization.id,
    app: row.app,
    scopes: row.scopes,
    status: row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** An installation read with its organization populated. */
export function installationWithOrganization(row: InstallationEntity): InstallationWithOrganization {
  return { ...installationRecord(row), organization: organizationRecord(row.organization) };
}

export function tokenRecord(row: IntegrationTokenEntity): IntegrationToken {
  return {
    id: row.id,
    installationId: row.installation.id,
    secretHash: row.secretHash,
    last4: row.last4,
    scopes: row.scopes,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt ?? null,
  };
}

export function guestRecord(row: GuestEntity): Guest {
  return {
    id: row.id,
    ref: row.ref,
    organizationId: row.organization.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    phone: row.phone,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
