import type { EntityManager } from '@mikro-orm/postgresql';
import { HostLinkSchema, HostSessionSchema, OwnerSchema, type HostLink, type HostSession } from './entities/index.ts';

/** Host links and host sessions (the host pages' sign-in), and the reads the host pages show. */

/** Adds a link to the unit of work, for the organization (a record: only its id is read). */
export function addHostLink(
  em: EntityManager,
  row: Omit<HostLink, 'organization' | 'usedAt'> & { organization: { id: string } },
): void {
  em.create(HostLinkSchema, { ...row, organization: row.organization.id, usedAt: null });
}

export type LinkUse =
  { outcome: 'opened'; organizationId: string; locale: string } | { outcome: 'used' | 'expired' | 'unknown' };

/**
 * Marks the link used, in one statement, if it is unused and not expired: two browsers opening
 * the same link race on this row and only one gets `opened`. Otherwise says why not.
 */
export async function useHostLink(em: EntityManager, tokenHash: string, now: Date): Promise<LinkUse> {
  const rows = await em.getConnection().execute<{ organization_id: string; locale: string }[]>(
    `update host_link set used_at = ? where token_hash = ? and used_at is null and expires_at > ?
      returning organization_id, locale`,
    [now, tokenHash, now],
  );
  const row = rows[0];
  if (row) return { outcome: 'opened', organizationId: row.organization_id, locale: row.locale };
  const link = await em.findOne(HostLinkSchema, { tokenHash });
  if (!link) return { outcome: 'unknown' };
  return { outcome: link.usedAt ? 'used' : 'expired' };
}

/** The organization and locale of a link that would open now (unused, not expired), without using it; null otherwise. */
export async function usableHostLink(
  em: EntityManager,
  tokenHash: string,
  now: Date,
): Promise<{ organizationId: string; organizationName: string; locale: string } | null> {
  const [row] = await em.getConnection().execute<{ organization_id: string; name: string; locale: string }[]>(
    `select l.organization_id, o.name, l.locale from host_link l join organization o on o.id = l.organization_id
      where l.token_hash = ? and l.used_at is null and l.expires_at > ?`,
    [tokenHash, now],
  );
  return row ? { organizationId: row.organization_id, organizationName: row.name, locale: row.locale } : null;
}

export function addHostSession(
  em: EntityManager,
  row: Omit<HostSession, 'organization' | 'endedAt'> & { organizationId: string },
): HostSession {
  const { organizationId, ...rest } = row;
  return em.create(HostSessionSchema, { ...rest, organization: organizationId, endedAt: null });
}

/** A host session with the organization it is scoped to. */
export interface SessionWithOrganization {
  id: string;
  organizationId: string;
  organizationRef: string;
  organizationName: string;
  locale: string;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

export async function findHostSession(em: EntityManager, secretHash: string): Promise<SessionWithOrganization | null> {
  const rows = await em.getConnection().execute<
    {
      id: string;
      organization_id: string;
      ref: string;
      name: string;
      locale: string;
      last_seen_at: string | Date;
      expires_at: string | Date;
      ended_at: string | Date | null;
    }[]
  >(
    `select s.id, s.organization_id, o.ref, o.name, s.locale, s.last_seen_at, s.expires_at, s.ended_at
       from host_session s join organization o on o.id = s.organization_id
      where s.secret_hash = ?`,
    [secretHash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    organizationId: row.organization_id,
    organizationRef: row.ref,
    organizationName: row.name,
    locale: row.locale,
    lastSeenAt: new Date(row.last_seen_at),
    expiresAt: new Date(row.expires_at),
    endedAt: row.ended_at === null ? null : new Date(row.ended_at),
  };
}

export async function touchHostSession(em: EntityManager, id: string, now: Date): Promise<void> {
  await em.nativeUpdate(HostSessionSchema, { id, endedAt: null }, { lastSeenAt: now });
}

export async function endHostSession(em: EntityManager, id: string, now: Date): Promise<void> {
  await em.nativeUpdate(HostSessionSchema, { id, endedAt: null }, { endedAt: now });
}

export async function setHostSessionLocale(em: EntityManager, id: string, locale: string): Promise<void> {
  await em.nativeUpdate(HostSessionSchema, { id }, { locale });
}

/** A session of an organization that has not ended, as the operator lists it. */
export interface OpenHostSession {
  id: string;
  locale: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/** The organization's sessions not ended, not past their lifetime and seen since `seenSince` (not idle too long), newest first. */
export async function openHostSessions(
  em: EntityManager,
  organizationId: string,
  now: Date,
  seenSince: Date,
): Promise<OpenHostSession[]> {
  const rows = await em.find(
    HostSessionSchema,
    { organization: organizationId, endedAt: null, expiresAt: { $gt: now }, lastSeenAt: { $gt: seenSince } },
    { orderBy: { createdAt: 'desc' } },
  );
  return rows.map(({ id, locale, createdAt, lastSeenAt, expiresAt }) => ({
    id,
    locale,
    createdAt,
    lastSeenAt,
    expiresAt,
  }));
}

/** Ends every session of the organization that has not ended; answers how many. */
export function endOrganizationSessions(em: EntityManager, organizationId: string, now: Date): Promise<number> {
  return em.nativeUpdate(
    HostSessionSchema,
    { organization: organizationId, endedAt: null, expiresAt: { $gt: now } },
    { endedAt: now },
  );
}

/** Spends every link of the organization not yet opened, so none opens a session; answers how many. */
export function spendOrganizationLinks(em: EntityManager, organizationId: string, now: Date): Promise<number> {
  return em.nativeUpdate(
    HostLinkSchema,
    { organization: organizationId, usedAt: null, expiresAt: { $gt: now } },
    { usedAt: now },
  );
}

/** Links and sessions past their end by more than a day: nothing reads them any more. */
export async function dropStaleHostRows(em: EntityManager, before: Date): Promise<void> {
  await em.nativeDelete(HostLinkSchema, { expiresAt: { $lt: before } });
  await em.nativeDelete(HostSessionSchema, { expiresAt: { $lt: before } });
}

/** An owner of the organization and one channel its properties are distributed to. */
export interface OwnerChannel {
  ownerRef: string;
  displayName: string;
  /** null for an owner none of whose properties is distributed. */
  channel: string | null;
  /**
   * `connected_at` of the owner in that channel's view: the text of the channel's stored owner
   * record (an instant as the contract writes it), or null.
   */
  connectedAt: string | null;
  /** True when that channel is suspended (no connection can be confirmed meanwhile); null without a channel. */
  channelSuspended: boolean | null;
  /** The zone of the owner's first property by reference (at a location of its organization); null without one. */
  timezone: string | null;
}

/**
 * The organization's owners, each with every channel one of its properties is distributed to
 * and the owner's `connected_at` as that channel's view shows it (null before it was projected).
 * Only properties at a location of the owner's organization count: a row joining two
 * organizations shows neither of them the other's channels. Each row carries the owner's zone,
 * that of its first property by reference, for the times the page writes.
 */
export async function ownersWithChannels(
  em: EntityManager,
  organizationId: string,
  ownerRef?: string,
): Promise<OwnerChannel[]> {
  const rows = await em.getConnection().execute<
    {
      owner_ref: string;
      display_name: string;
      channel: string | null;
      connected_at: string | null;
      channel_suspended: boolean | null;
      timezone: string | null;
    }[]
  >(
    `select distinct o.ref as owner_ref, o.content->>'display_name' as display_name, c.name as channel,
            cr.body->>'connected_at' as connected_at, c.status = 'suspended' as channel_suspended,
            (select zl.content->>'timezone' from property zp join location zl on zl.id = zp.location_id
              where zp.owner_id = o.id and zl.organization_id = o.organization_id order by zp.ref limit 1) as timezone
       from owner o
       left join (property p join location l on l.id = p.location_id) on p.owner_id = o.id and l.organization_id = o.organization_id
       left join distribution d on d.property_id = p.id
       left join channel c on c.id = d.channel_id
       left join channel_resource cr on cr.channel_id = c.id and cr.kind = 'owner' and cr.internal_id = o.id
      where o.organization_id = ?${ownerRef === undefined ? '' : ' and o.ref = ?'}
      order by display_name, owner_ref, channel`,
    ownerRef === undefined ? [organizationId] : [organizationId, ownerRef],
  );
  return rows.map((row) => ({
    ownerRef: row.owner_ref,
    displayName: row.display_name,
    channel: row.channel,
    connectedAt: row.connected_at,
    channelSuspended: row.channel_suspended,
    timezone: row.timezone,
  }));
}

/** The owner under this reference if it belongs to the organization; null otherwise (no difference told). */
export function findOwnerOfOrganization(em: EntityManager, organizationId: string, ref: string) {
  return em.findOne(OwnerSchema, { ref, organization: organizationId });
}
