import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  addHostLink,
  addHostSession,
  dropStaleHostRows,
  endHostSession as endSessionRow,
  endOrganizationSessions,
  findHostSession,
  findOwnerOfOrganization,
  openHostSessions,
  ownersWithChannels,
  type OwnerChannel,
  setHostSessionLocale,
  spendOrganizationLinks,
  touchHostSession,
  usableHostLink,
  useHostLink,
} from '../db/host-sessions.ts';
import { findOrganizationByRef } from '../db/integration.ts';
import { resolveHostLocale, type HostLocale } from '../domain/host-locale.ts';
import { ProblemError } from '../domain/problems.ts';
import { Refusal } from './refusal.ts';
import type { ServiceDeps } from './deps.ts';
import { wholeSeconds } from '../domain/time.ts';

/**
 * The host pages' sign-in. The platform vouches for a host of one organization by asking for a
 * one-time link; opening it starts a session scoped to that organization. Link tokens and session
 * secrets are 256 random bits, stored as SHA-256 only; the session cookie also carries an HMAC of
 * its secret under the server key ring, so a forged cookie is refused without a database read.
 */

type Deps = Pick<ServiceDeps, 'orm' | 'clock' | 'secrets'>;

/** How long a link may wait to be opened. */
export const HOST_LINK_SECONDS = 300;
/** A session ends after this long without a request... */
export const HOST_SESSION_IDLE_SECONDS = 8 * 3600;
/** ...and this long after it started, whatever happens. */
export const HOST_SESSION_MAX_SECONDS = 12 * 3600;
/** A session's `last_seen_at` is written at most this often (one write per page view is waste). */
const TOUCH_EVERY_MS = 60_000;

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const randomSecret = () => randomBytes(32).toString('base64url');

export async function createHostLink(
  deps: Deps,
  input: { organization: string; locale?: string | undefined },
): Promise<{ token: string; expiresAt: Date }> {
  const em = deps.orm.em.fork();
  const organization = await findOrganizationByRef(em, input.organization);
  if (!organization) {
    throw new ProblemError('invalid_parameters', {
      errors: [
        {
          detail: `no organization with reference "${input.organization}"`,
          code: 'unknown_reference',
          pointer: '/organization',
        },
      ],
    });
  }
  const now = deps.clock.now();
  const token = `hsl_${randomSecret()}`;
  // Whole seconds, as the answer states it.
  const expiresAt = new Date(wholeSeconds(now).getTime() + HOST_LINK_SECONDS * 1000);
  await em.transactional(async (tx) => {
    await dropStaleHostRows(tx, new Date(now.getTime() - 86_400_000));
    addHostLink(tx, {
      id: randomUUID(),
      tokenHash: hashOf(token),
      organization,
      locale: resolveHostLocale(input.locale),
      createdAt: now,
      expiresAt,
    });
  });
  return { token, expiresAt };
}

/** A live session as the pages see it. */
export interface HostSessionView {
  id: string;
  organizationId: string;
  organizationRef: string;
  organizationName: string;
  locale: HostLocale;
  /** The synchronizer token every form of this session carries. */
  csrfToken: string;
}

function macOf(key: Uint8Array, secret: string): Buffer {
  return createHmac('sha256', key).update(`host-session\0${secret}`).digest();
}

/** `<secret>.<HMAC of the secret under the ring's newest key>` */
function cookieFor(deps: Deps, secret: string): string {
  return `${secret}.${macOf(deps.secrets.ring.keys[0]!.secret, secret).toString('base64url')}`;
}

/** The secret of a well-formed cookie signed by any key of the ring; null otherwise. */
function secretOfCookie(deps: Deps, cookie: string): string | null {
  const match = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
  if (!match) return null;
  const given = Buffer.from(match[2]!, 'base64url');
  const signed = deps.secrets.ring.keys.some((key) => timingSafeEqual(macOf(key.secret, match[1]!), given));
  return signed ? match[1]! : null;
}

function csrfTokenOf(secret: string): string {
  return createHmac('sha256', secret).update('host-csrf').digest('base64url');
}

/** True when the form's token is the session's (constant time). */
export function csrfMatches(session: HostSessionView, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(session.csrfToken);
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export type LinkOpening =
  { outcome: 'opened'; cookie: string; maxAgeSeconds: number } | { outcome: 'used' | 'expired' | 'unknown' };

/** Uses the link (once) and starts a session; says why not when the link was used, expired or never issued. */
export async function openHostSession(deps: Deps, token: string): Promise<LinkOpening> {
  if (!/^hsl_[A-Za-z0-9_-]{43}$/.test(token)) return { outcome: 'unknown' };
  const now = deps.clock.now();
  return deps.orm.em.fork().transactional(async (tx): Promise<LinkOpening> => {
    const use = await useHostLink(tx, hashOf(token), now);
    if (use.outcome !== 'opened') return use;
    const secret = randomSecret();
    addHostSession(tx, {
      id: randomUUID(),
      secretHash: hashOf(secret),
      organizationId: use.organizationId,
      locale: use.locale,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + HOST_SESSION_MAX_SECONDS * 1000),
    });
    return { outcome: 'opened', cookie: cookieFor(deps, secret), maxAgeSeconds: HOST_SESSION_MAX_SECONDS };
  });
}

/**
 * The organization a link would sign in to, if it would open now; the link stays unused. For
 * asking a host signed in to another organization before its session is replaced.
 */
export async function peekHostLink(
  deps: Deps,
  token: string,
): Promise<{ organizationId: string; organizationName: string; locale: HostLocale } | null> {
  if (!/^hsl_[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const link = await usableHostLink(deps.orm.em.fork(), hashOf(token), deps.clock.now());
  return link && { ...link, locale: resolveHostLocale(link.locale) };
}

/** The live session a cookie names, or null when it is forged, unknown, ended, idle too long or past its lifetime. */
export async function currentHostSession(deps: Deps, cookie: string | undefined): Promise<HostSessionView | null> {
  const secret = cookie === undefined ? null : secretOfCookie(deps, cookie);
  if (secret === null) return null;
  const em = deps.orm.em.fork();
  const row = await findHostSession(em, hashOf(secret));
  const now = deps.clock.now();
  if (
    !row ||
    row.endedAt !== null ||
    row.expiresAt <= now ||
    now.getTime() - row.lastSeenAt.getTime() >= HOST_SESSION_IDLE_SECONDS * 1000
  )
    return null;
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await touchHostSession(em, row.id, now);
  return {
    id: row.id,
    organizationId: row.organizationId,
    organizationRef: row.organizationRef,
    organizationName: row.organizationName,
    locale: resolveHostLocale(row.locale),
    csrfToken: csrfTokenOf(secret),
  };
}

export async function endHostSession(deps: Deps, session: HostSessionView): Promise<void> {
  await endSessionRow(deps.orm.em.fork(), session.id, deps.clock.now());
}

export async function switchHostLocale(deps: Deps, session: HostSessionView, locale: HostLocale): Promise<void> {
  await setHostSessionLocale(deps.orm.em.fork(), session.id, locale);
}

export interface HostOwner {
  ref: string;
  displayName: string;
  /** Each channel one of the owner's properties is distributed to, by name. */
  channels: { name: string; connectedAt: string | null; suspended: boolean }[];
  /** The zone the owner's times are written in: that of its first property by reference (UTC without one). */
  timezone: string;
}

function groupOwners(pairs: readonly OwnerChannel[]): HostOwner[] {
  const owners = new Map<string, HostOwner>();
  for (const pair of pairs) {
    const owner = owners.get(pair.ownerRef) ?? {
      ref: pair.ownerRef,
      displayName: pair.displayName,
      channels: [],
      timezone: pair.timezone ?? 'UTC',
    };
    owners.set(pair.ownerRef, owner);
    if (pair.channel !== null)
      owner.channels.push({
        name: pair.channel,
        connectedAt: pair.connectedAt,
        suspended: pair.channelSuspended === true,
      });
  }
  return [...owners.values()];
}

/** The session's organization's owners with their channels and connection states. */
export async function hostOverview(deps: Deps, session: HostSessionView): Promise<HostOwner[]> {
  return groupOwners(await ownersWithChannels(deps.orm.em.fork(), session.organizationId));
}

/**
 * The owner under `ref` with `channel` among its channels, if the owner belongs to the session's
 * organization; null otherwise, alike for an unknown owner and another organization's.
 */
export async function hostOwnerChannel(
  deps: Deps,
  session: HostSessionView,
  ref: string,
  channel: string,
): Promise<HostOwner | null> {
  const em = deps.orm.em.fork();
  if (!(await findOwnerOfOrganization(em, session.organizationId, ref))) return null;
  const [owner] = groupOwners(await ownersWithChannels(em, session.organizationId, ref));
  return owner && owner.channels.some((c) => c.name === channel) ? owner : null;
}

/** An open session as the operator sees it: never its secret. */
export interface HostSessionRecord {
  id: string;
  locale: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** When it ends whatever happens (12 h after sign-in)... */
  expiresAt: Date;
  /** ...and when it ends unless used again before (8 h after its last request, to the minute). */
  idleUntil: Date;
}

async function organizationIdOf(deps: Deps, ref: string): Promise<string> {
  const organization = await findOrganizationByRef(deps.orm.em.fork(), ref);
  if (!organization) throw new Refusal(`no organization with reference "${ref}"`);
  return organization.id;
}

/** The organization's open sessions on the host pages, newest first (operator CLI). */
export async function listHostSessions(deps: Deps, organizationRef: string): Promise<HostSessionRecord[]> {
  const organizationId = await organizationIdOf(deps, organizationRef);
  const now = deps.clock.now();
  const idleMs = HOST_SESSION_IDLE_SECONDS * 1000;
  const rows = await openHostSessions(deps.orm.em.fork(), organizationId, now, new Date(now.getTime() - idleMs));
  return rows.map((row) => ({
    ...row,
    idleUntil: new Date(Math.min(row.lastSeenAt.getTime() + idleMs, row.expiresAt.getTime())),
  }));
}

/**
 * Signs everyone out of the organization's host pages at once (operator CLI): every session ends
 * at its next request, and every link not yet opened is spent. For a host account taken over or
 * a device lost; the platform can open a new session with a new link afterwards.
 */
export async function endHostAccess(
  deps: Deps,
  organizationRef: string,
): Promise<{ endedSessions: number; spentLinks: number }> {
  const organizationId = await organizationIdOf(deps, organizationRef);
  const now = deps.clock.now();
  return deps.orm.em.fork().transactional(async (tx) => ({
    endedSessions: await endOrganizationSessions(tx, organizationId, now),
    spentLinks: await spendOrganizationLinks(tx, organizationId, now),
  }));
}
