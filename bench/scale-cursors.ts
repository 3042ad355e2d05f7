/**
 * Cursors into the middle of millions of rows, which no client would page to in a bench's time:
 * minted with the service's own cursor code (domain/catalogue/cursor.ts), the positions its
 * readers put in them (services/catalogue-reads.ts `readEvents`, services/webhook-deliveries.ts
 * `listDeliveries`) and the key ring of the server secret the bench runs the service with. A page
 * read from one answers 200 only if the service takes it as its own.
 */
import { encodeCursor, hashQuery } from '../domain/catalogue/cursor.ts';
import { wholeSeconds } from '../domain/time.ts';
import type { CaseContext } from './scale-cases.ts';
import { failedFirstSql } from './scale-plan.ts';

type Context = Pick<CaseContext, 'sql' | 'size' | 'deps'>;

/** A cursor of `GET /events` standing on the event at `position`, as a full page ending there leaves it. */
export async function eventCursor(context: Context, position: number): Promise<string> {
  const { channelId } = context.size.context;
  const [event] = (
    await context.sql.query<{ id: string; occurred_at: Date }>(
      'select id, occurred_at from event where channel_id = $1 and position = $2',
      [channelId, position],
    )
  ).rows;
  if (!event) throw new Error(`the log holds no event at ${position}`);
  return encodeCursor(
    { p: position, t: wholeSeconds(event.occurred_at).getTime(), e: event.id },
    hashQuery({ kind: 'events', channel: channelId }),
    context.deps.secrets.ring,
  );
}

/**
 * A cursor of the endpoint's deliveries standing on the delivery of the first event at or after
 * `position` whose delivery was retried (two attempts; inside the group of its dispatch), and
 * that delivery's id.
 */
export async function deliveryCursor(
  context: Context,
  position: number,
): Promise<{ cursor: string; deliveryId: string }> {
  const { channelId, endpointId } = context.size.context;
  const [delivery] = (
    await context.sql.query<{ id: string; created_at: Date }>(
      `select d.id, d.created_at from event e join webhook_delivery d on d.endpoint_id = $3 and d.event_id = e.id
        where e.channel_id = $1 and e.position >= $2 and e.type = 'property.updated' and ${failedFirstSql('e.position')}
        order by e.position limit 1`,
      [channelId, position, endpointId],
    )
  ).rows;
  if (!delivery) throw new Error(`no retried delivery after position ${position}`);
  const cursor = await encodeCursor(
    { t: delivery.created_at.getTime(), i: delivery.id },
    hashQuery({ kind: 'deliveries', endpoint: endpointId }),
    context.deps.secrets.ring,
  );
  return { cursor, deliveryId: delivery.id };
}
