import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { OrganizationSchema } from './catalogue.ts';

/**
 * A one-time link the platform asked for (`POST /internal/v1/host-sessions`): opening it starts a
 * host session scoped to the organization. Only the SHA-256 of the link's token is kept; `usedAt`
 * makes it single use. Rows go with their organization.
 */
export const HostLinkSchema = defineEntity({
  name: 'HostLink',
  tableName: 'host_link',
  properties: {
    id: p.uuid().primary(),
    tokenHash: p.string().length(64).unique(),
    organization: () => p.manyToOne(OrganizationSchema).index().deleteRule('cascade'),
    locale: p.string().length(8),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});

/**
 * A host's browser session on the host pages. The cookie carries a random secret (signed with the
 * server key ring); only its SHA-256 is stored. A session ends at `endedAt` (logout), after
 * `idle` without a request, or at `expiresAt` (its absolute lifetime), whichever comes first.
 */
export const HostSessionSchema = defineEntity({
  name: 'HostSession',
  tableName: 'host_session',
  properties: {
    id: p.uuid().primary(),
    secretHash: p.string().length(64).unique(),
    organization: () => p.manyToOne(OrganizationSchema).index().deleteRule('cascade'),
    locale: p.string().length(8),
    createdAt: p.datetime(),
    lastSeenAt: p.datetime(),
    expiresAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});

export type HostLink = InferEntity<typeof HostLinkSchema>;
export type HostSession = InferEntity<typeof HostSessionSchema>;
