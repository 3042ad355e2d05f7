import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { OrganizationSchema } from './catalogue.ts';

/** An app installed by an organization, with the scopes the organization granted it. */
export const InstallationSchema = defineEntity({
  name: 'Installation',
  tableName: 'installation',
  properties: {
    id: p.uuid().primary(),
    organization: () => p.manyToOne(OrganizationSchema).index(),
    app: p.string().length(64),
    scopes: p.array(),
    status: p.enum(['active', 'disabled', 'error'] as const),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  // One installation of an app per organization: a repeated install is refused, not doubled.
  uniques: [{ properties: ['organization', 'app'] }],
});

/**
 * An installation's token. Only the SHA-256 of the token is kept; issuing a new one revokes the
 * previous in the same transaction, and the partial unique index holds that to one live token.
 */
export const IntegrationTokenSchema = defineEntity({
  name: 'IntegrationToken',
  tableName: 'integration_token',
  properties: {
    id: p.uuid().primary(),
    installation: () => p.manyToOne(InstallationSchema).deleteRule('cascade'),
    secretHash: p.string().length(64).unique(),
    last4: p.string().length(4),
    scopes: p.array(),
    createdAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
  uniques: [
    { name: 'integration_token_one_live_per_installation', properties: ['installation'], where: 'revoked_at is null' },
  ],
});

/**
 * A guest of an organization, written by the platform under its reference. Personal data:
 * deleting a guest deletes the row, and `seq` breaks ties of `created_at` in the newest-first list.
 */
export const GuestSchema = defineEntity({
  name: 'Guest',
  tableName: 'guest',
  properties: {
    id: p.uuid().primary(),
    ref: p.string().length(64).unique(),
    seq: p.bigint('number').autoincrement(),
    organization: () => p.manyToOne(OrganizationSchema),
    firstName: p.string().length(100),
    lastName: p.string().length(100),
    email: p.string().length(254),
    phone: p.string().length(16),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ name: 'guest_newest_first', properties: ['organization', 'createdAt', 'seq'] }],
});

export type Installation = InferEntity<typeof InstallationSchema>;
export type IntegrationToken = InferEntity<typeof IntegrationTokenSchema>;
export type Guest = InferEntity<typeof GuestSchema>;
