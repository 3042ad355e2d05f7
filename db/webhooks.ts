import type { EntityManager } from '@mikro-orm/postgresql';
import { toInstant } from '../domain/time.ts';
import type { SecretBox } from '../infra/secret-box.ts';

/** A webhook endpoint row as raw queries return it. */
export interface EndpointRow {
  id: string;
  channel_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'active' | 'inactive' | 'deleted';
  suspended_reason: 'failing' | 'gone' | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  secret_generation: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, channel_id, url, events, description, status, suspended_reason, secret, previous_secret,
  previous_secret_expires_at, secret_generation, created_at, updated_at`;

export async function findEndpoint(em: EntityManager, channelId: string, id: string, options: { lock?: boolean } = {}): Promise<EndpointRow | null> {
  const [row] = await em.execute<EndpointRow[]>(
    `select ${COLUMNS} from webhook_endpoint where channel_id = ? and id = ? and status <> 'deleted'${options.lock ? ' for update' : ''}`,
    [channelId, id],
  );
  return row ?? null;
}

export async function endpointById(em: EntityManager, id: string): Promise<EndpointRow | null> {
  const [row] = await em.execute<EndpointRow[]>(`select ${COLUMNS} from webhook_endpoint where id = ?`, [id]);
  return row ?? null;
}

export async function listEndpoints(em: EntityManager, channelId: string): Promise<EndpointRow[]> {
  return em.execute<EndpointRow[]>(`select ${COLUMNS} from webhook_endpoint where channel_id = ? and status <> 'deleted' order by created_at, id`, [channelId]);
}

/** Associated data binding a sealed secret to its endpoint. */
export function secretContext(endpointId: string): string {
  return `webhook_endpoint:${endpointId}`;
}

/** Whether a rotated-out secret still signs beside the current one. */
function previousSecretLive(endpoint: EndpointRow, now: Date): boolean {
  return endpoint.previous_secret !== null && endpoint.previous_secret_expires_at !== null && Date.parse(endpoint.previous_secret_expires_at) > now.getTime();
}

/**
 * The secrets that sign now: the current one, and the previous one until it expires. Order: the
 * current first.
 */
export function liveSecrets(endpoint: EndpointRow, box: SecretBox, now: Date): string[] {
  const context = secretContext(endpoint.id);
  const secrets = endpoint.secret ? [box.open(endpoint.secret, context)] : [];
  if (previousSecretLive(endpoint, now)) secrets.push(box.open(endpoint.previous_secret!, context));
  return secrets;
}

/** The endpoint as the channel sees it; `secret` only when just created or rotated. */
export function endpointRecord(endpoint: EndpointRow, now: Date, secret?: string): Record<string, unknown> {
  const previousLive = previousSecretLive(endpoint, now);
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    status: endpoint.status,
    suspended_reason: endpoint.suspended_reason,
    ...(secret === undefined ? {} : { secret }),
    previous_secret_expires_at: previousLive ? toInstant(new Date(endpoint.previous_secret_expires_at!)) : null,
    created_at: toInstant(new Date(endpoint.created_at)),
    updated_at: toInstant(new Date(endpoint.updated_at)),
  };
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  state: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  completed_at: string | null;
}

const instantOrNull = (value: string | null) => (value === null ? null : toInstant(new Date(value)));

export function deliveryRecord(delivery: DeliveryRow): Record<string, unknown> {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    state: delivery.state,
    attempts: delivery.attempts,
    created_at: toInstant(new Date(delivery.created_at)),
    last_attempt_at: instantOrNull(delivery.last_attempt_at),
    next_attempt_at: instantOrNull(delivery.next_attempt_at),
    completed_at: instantOrNull(delivery.completed_at),
  };
}

/** Deliveries are kept 35 days. */
export async function dropExpiredDeliveries(em: EntityManager, now: Date): Promise<void> {
  await em.execute('delete from webhook_delivery where created_at < ?', [new Date(now.getTime() - 35 * 24 * 3600 * 1000)]);
}
