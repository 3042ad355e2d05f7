import type { Channel } from '../db/channels.ts';
import {
  deliveriesPage,
  deliveryAttempts,
  findDelivery,
  type StoredDelivery,
  type WebhookAttempt,
} from '../db/webhook-deliveries.ts';
import { decodeCursor, encodeCursor, hashQuery } from '../domain/catalogue/cursor.ts';
import { ProblemError } from '../domain/problems.ts';
import type { ServiceDeps } from './deps.ts';
import { findChannelEndpoint } from './webhooks.ts';

export interface DeliveryPage {
  deliveries: StoredDelivery[];
  nextCursor: string | null;
}

/** A page of an endpoint's deliveries, newest first; the cursor is bound to the endpoint. */
export async function listDeliveries(
  deps: Pick<ServiceDeps, 'orm' | 'stores' | 'secrets'>,
  channel: Channel,
  webhookId: string,
  query: { limit: number; cursor?: string | undefined },
): Promise<DeliveryPage> {
  const endpoint = await findChannelEndpoint(deps, channel, webhookId);
  const hash = hashQuery({ kind: 'deliveries', endpoint: endpoint.id });
  let after: { createdAt: Date; id: string } | null = null;
  if (query.cursor !== undefined) {
    const decoded = await decodeCursor(query.cursor, hash, deps.secrets.ring);
    if (!decoded || typeof decoded.t !== 'number' || typeof decoded.i !== 'string')
      throw new ProblemError('invalid_cursor');
    after = { createdAt: new Date(decoded.t), id: decoded.i };
  }
  const rows = await deliveriesPage(deps.orm.em.fork(), endpoint.id, after, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last
      ? await encodeCursor({ t: last.createdAt.getTime(), i: last.id }, hash, deps.secrets.ring)
      : null;
  return { deliveries: page, nextCursor };
}

/** One delivery of one of the channel's endpoints, with every attempt. */
export async function getDelivery(
  deps: Pick<ServiceDeps, 'orm' | 'stores'>,
  channel: Channel,
  webhookId: string,
  deliveryId: string,
): Promise<{ delivery: StoredDelivery; attempts: WebhookAttempt[] }> {
  const endpoint = await findChannelEndpoint(deps, channel, webhookId);
  const em = deps.orm.em.fork();
  const delivery = await findDelivery(em, deliveryId, endpoint.id);
  if (!delivery) throw new ProblemError('not_found');
  return { delivery, attempts: await deliveryAttempts(em, delivery.id) };
}
