import type { EntityManager } from '@mikro-orm/postgresql';

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

/** Deliveries are kept 35 days. */
export async function dropExpiredDeliveries(em: EntityManager, now: Date): Promise<void> {
  await em.execute('delete from webhook_delivery where created_at < ?', [new Date(now.getTime() - 35 * 24 * 3600 * 1000)]);
}
