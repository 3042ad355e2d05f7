import type { EntityManager } from '@mikro-orm/postgresql';
import type { EndpointStatus, SuspensionReason } from '../domain/webhooks/states.ts';
import { retentionCutoff } from '../domain/webhooks/deliveries.ts';
import { WebhookEndpointSchema } from './entities/index.ts';
import { pgArray } from './sql.ts';

/** A webhook endpoint, as the repositories answer it. */
export interface StoredEndpoint {
  id: string;
  channelId: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  suspendedReason: SuspensionReason | null;
  /** Sealed (infra/secret-box.ts); null once the endpoint is deleted. */
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  secretGeneration: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The row as raw queries return it (instants as text, or as JSON text inside a document). */
export interface EndpointRow {
  id: string;
  channel_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointStatus;
  suspended_reason: SuspensionReason | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  secret_generation: number;
  created_at: string;
  updated_at: string;
}

export function endpointFromRow(row: EndpointRow): StoredEndpoint {
  return {
    id: row.id,
    channelId: row.channel_id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    suspendedReason: row.suspended_reason,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
    secretGeneration: row.secret_generation,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const COLUMNS = `id, channel_id, url, events, description, status, suspended_reason, secret, previous_secret,
  previous_secret_expires_at, secret_generation, created_at, updated_at`;

/** A live (not deleted) endpoint of the channel; `lock` holds it until the transaction ends. */
export async function findEndpoint(
  em: EntityManager,
  channelId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<StoredEndpoint | null> {
  const [row] = await em.execute<EndpointRow[]>(
    `select ${COLUMNS} from webhook_endpoint where channel_id = ? and id = ? and status <> 'deleted'${options.lock ? ' for update' : ''}`,
    [channelId, id],
  );
  return row ? endpointFromRow(row) : null;
}

/** Any endpoint, deleted ones included (a delivery names the endpoint it was made for). */
export async function endpointById(em: EntityManager, id: string): Promise<StoredEndpoint | null> {
  const [row] = await em.execute<EndpointRow[]>(`select ${COLUMNS} from webhook_endpoint where id = ?`, [id]);
  return row ? endpointFromRow(row) : null;
}

/** The channel's live endpoints, oldest first. */
export async function listEndpoints(em: EntityManager, channelId: string): Promise<StoredEndpoint[]> {
  const rows = await em.execute<EndpointRow[]>(
    `select ${COLUMNS} from webhook_endpoint where channel_id = ? and status <> 'deleted' order by created_at, id`,
    [channelId],
  );
  return rows.map(endpointFromRow);
}

/** What the dispatcher needs of the endpoints that are sent events. */
export type DispatchEndpoint = Pick<StoredEndpoint, 'id' | 'events' | 'url'> & {
  resumeAfter: number;
  /** Sandbox fast retries: its deliveries' schedule runs this many times faster; 1 otherwise. */
  timeFactor: number;
};

export async function activeEndpoints(em: EntityManager, channelId: string): Promise<DispatchEndpoint[]> {
  // resume_after_position is a bigint, read as text: the endpoint is sent the events after it.
  const rows = await em.execute<
    (Pick<EndpointRow, 'id' | 'events' | 'url'> & { resume_after_position: string; time_factor: number })[]
  >(
    `select id, events, url, resume_after_position, time_factor from webhook_endpoint where channel_id = ? and status = 'active'`,
    [channelId],
  );
  return rows.map((row) => ({
    id: row.id,
    events: row.events,
    url: row.url,
    resumeAfter: Number(row.resume_after_position),
    timeFactor: row.time_factor,
  }));
}

/**
 * Locks the channel's row: one writer of its endpoints at a time, so two concurrent creations
 * cannot both pass the limit or both register the same URL.
 */
export async function lockChannelEndpoints(tx: EntityManager, channelId: string): Promise<void> {
  await tx.execute('select id from channel where id = ? for update', [channelId]);
}

export interface NewEndpoint {
  id: string;
  channelId: string;
  url: string;
  events: readonly string[];
  description: string | null;
  /** Sealed by the caller: the database never sees a plain secret. */
  sealedSecret: string;
  now: Date;
}

/** The end of the channel's log as committed now: an endpoint registered or enabled now is sent what comes after. */
const LOG_END = '(select coalesce((select last_position from channel_log where channel_id = ?), 0))';

/** An active endpoint with its first secret (generation 1), sent the channel's events from now on. */
export async function insertEndpoint(tx: EntityManager, endpoint: NewEndpoint): Promise<void> {
  await tx.execute(
    `insert into webhook_endpoint (id, channel_id, url, events, description, status, suspended_reason, secret, previous_secret, previous_secret_expires_at, secret_generation, resume_after_position, created_at, updated_at, deleted_at)
     values (?, ?, ?, ?::text[], ?, 'active', null, ?, null, null, 1, ${LOG_END}, ?, ?, null)`,
    [
      endpoint.id,
      endpoint.channelId,
      endpoint.url,
      pgArray(endpoint.events),
      endpoint.description,
      endpoint.sealedSecret,
      endpoint.channelId,
      endpoint.now,
      endpoint.now,
    ],
  );
}

/** The row stays (its deliveries name it); its secrets are destroyed. */
export async function markEndpointDeleted(em: EntityManager, id: string, now: Date): Promise<void> {
  await em.nativeUpdate(
    WebhookEndpointSchema,
    { id },
    {
      status: 'deleted',
      secret: null,
      previousSecret: null,
      previousSecretExpiresAt: null,
      deletedAt: now,
      updatedAt: now,
    },
  );
}

/**
 * Deleted endpoints (their secrets already destroyed) are kept while a delivery names them, then
 * purged once the delivery retention has passed since their deletion.
 */
export async function dropDeletedEndpoints(em: EntityManager, now: Date): Promise<void> {
  await em.execute(
    `delete from webhook_endpoint e where e.status = 'deleted' and e.deleted_at < ?
       and not exists (select 1 from webhook_delivery d where d.endpoint_id = e.id)`,
    [retentionCutoff(now)],
  );
}

/**
 * An inactive endpoint becomes active again, sent only the channel's events from now on (nothing
 * missed is replayed); any other is left as it is.
 */
export async function reactivateEndpoint(em: EntityManager, channelId: string, id: string, now: Date): Promise<void> {
  await em.execute(
    `update webhook_endpoint set status = 'active', suspended_reason = null, resume_after_position = ${LOG_END}, updated_at = ? where id = ? and status = 'inactive'`,
    [channelId, now, id],
  );
}

/** Makes an active endpoint inactive for `reason`; true when this call did it. */
export async function suspendEndpoint(
  em: EntityManager,
  id: string,
  reason: SuspensionReason,
  now: Date,
): Promise<boolean> {
  return (
    (await em.nativeUpdate(
      WebhookEndpointSchema,
      { id, status: 'active' },
      { status: 'inactive', suspendedReason: reason, updatedAt: now },
    )) > 0
  );
}

/**
 * Installs a new sealed secret and bumps the generation. `previous` is the sealed secret that
 * keeps signing until `previousExpiresAt`, or null when the old one is dropped at once.
 */
export async function replaceSecret(
  tx: EntityManager,
  id: string,
  secrets: { sealed: string; previous: string | null; previousExpiresAt: Date | null },
  now: Date,
): Promise<void> {
  await tx.execute(
    `update webhook_endpoint set secret = ?, previous_secret = ?, previous_secret_expires_at = ?, secret_generation = secret_generation + 1, updated_at = ? where id = ?`,
    [secrets.sealed, secrets.previous, secrets.previousExpiresAt, now, id],
  );
}

/** Destroys the previous secret unless a later rotation (another generation) replaced it; true when it did. */
export async function destroyPreviousSecret(em: EntityManager, id: string, generation: number): Promise<boolean> {
  const changed = await em.nativeUpdate(
    WebhookEndpointSchema,
    { id, secretGeneration: generation, previousSecret: { $ne: null } },
    { previousSecret: null, previousSecretExpiresAt: null },
  );
  return changed > 0;
}

/** Whom to tell about an endpoint: its URL, its channel's name and technical contact. */
export async function endpointContact(
  em: EntityManager,
  id: string,
): Promise<{ url: string; channel: string; email: string | null } | null> {
  const endpoint = await em.findOne(WebhookEndpointSchema, { id }, { populate: ['channel'] });
  return endpoint
    ? { url: endpoint.url, channel: endpoint.channel.name, email: endpoint.channel.technicalContactEmail ?? null }
    : null;
}

/** Live endpoints holding a sealed secret that does not start with `prefix` (sealed under another key). */
export async function endpointsSealedOtherwise(
  em: EntityManager,
  prefix: string,
): Promise<Pick<StoredEndpoint, 'id' | 'secret' | 'previousSecret'>[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await em.execute<Pick<EndpointRow, 'id' | 'secret' | 'previous_secret'>[]>(
    `select id, secret, previous_secret from webhook_endpoint
      where status <> 'deleted' and ((secret is not null and secret not like ?) or (previous_secret is not null and previous_secret not like ?))`,
    [pattern, pattern],
  );
  return rows.map((row) => ({ id: row.id, secret: row.secret, previousSecret: row.previous_secret }));
}

/** Replaces one sealed value with the same secret sealed again, unless it changed meanwhile; true when it did. */
export async function resealValue(
  em: EntityManager,
  id: string,
  column: 'secret' | 'previous_secret',
  from: string,
  to: string,
): Promise<boolean> {
  const changed = await em.execute<{ id: string }[]>(
    `update webhook_endpoint set ${column} = ? where id = ? and ${column} = ? returning id`,
    [to, id, from],
  );
  return changed.length > 0;
}

/**
 * Sets a live endpoint's time factor (sandbox fast retries; 1 turns them off); its new factor, or
 * null when the channel has no such endpoint.
 */
export async function setEndpointTimeFactor(
  em: EntityManager,
  channelId: string,
  id: string,
  factor: number,
  now: Date,
): Promise<number | null> {
  const [row] = await em.execute<{ time_factor: number }[]>(
    `update webhook_endpoint set time_factor = ?, updated_at = case when time_factor = ? then updated_at else ? end
      where channel_id = ? and id = ? and status <> 'deleted' returning time_factor`,
    [factor, factor, now, channelId, id],
  );
  return row ? row.time_factor : null;
}

/** A live endpoint's time factor, or null when the channel has no such endpoint. */
export async function endpointTimeFactor(em: EntityManager, channelId: string, id: string): Promise<number | null> {
  const [row] = await em.execute<{ time_factor: number }[]>(
    `select time_factor from webhook_endpoint where channel_id = ? and id = ? and status <> 'deleted'`,
    [channelId, id],
  );
  return row ? row.time_factor : null;
}

/** Any endpoint's time factor (a delivery driven again keeps its endpoint's clock); 1 for none. */
export async function timeFactorOfEndpoint(em: EntityManager, id: string): Promise<number> {
  const [row] = await em.execute<{ time_factor: number }[]>('select time_factor from webhook_endpoint where id = ?', [
    id,
  ]);
  return row?.time_factor ?? 1;
}
