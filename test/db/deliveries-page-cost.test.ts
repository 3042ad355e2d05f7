import type { MikroORM } from '@mikro-orm/postgresql';
import { beforeAll, expect, test } from 'vitest';
import { deliveriesPage, upsertDeliveries } from '../../db/webhook-deliveries.ts';
import { insertEndpoint } from '../../db/webhook-endpoints.ts';
import { newExternalId } from '../../domain/catalogue/ids.ts';
import { createChannel } from '../../services/channels.ts';
import { serviceStores } from '../../services/stores/index.ts';
import { freshDatabase } from '../support/database.ts';
import { uniqueChannelName } from '../support/fixtures.ts';
import { readCosts, statementsOf, type Cost } from '../support/statement-costs.ts';

// A deep page of an endpoint's deliveries costs what the first page costs, also inside a group of
// deliveries made in one dispatch (they share one `created_at`, and the page's position is
// `(created_at, id)`). Measured by PostgreSQL: EXPLAIN ANALYZE BUFFERS of the page's statement.

const SMALL = 2_000;
const LARGE = 20_000;
const LIMIT = 51;
const CREATED = new Date('2026-11-20T08:00:00Z');

let orm: MikroORM;
let endpointId: string;

beforeAll(async () => {
  ({ orm } = await freshDatabase());
  const channel = await createChannel(
    { stores: serviceStores(orm), clock: { now: () => CREATED } },
    { name: uniqueChannelName(), rateLimitPerMinute: 600, redirectUrl: null, technicalContactEmail: null },
  );
  endpointId = newExternalId('webhook', CREATED.getTime());
  await insertEndpoint(orm.em.fork(), {
    id: endpointId,
    channelId: channel.id,
    url: 'https://receiver.example/hook',
    events: ['*'],
    description: null,
    sealedSecret: 'sealed',
    now: CREATED,
  });
});

/** `count` deliveries made in one dispatch, written by the dispatcher's own statement. */
async function dispatched(count: number, at: Date): Promise<void> {
  for (let from = 0; from < count; from += 1_000) {
    const chunk = Array.from({ length: Math.min(1_000, count - from) }, () => {
      const eventId = newExternalId('event', at.getTime());
      return {
        id: newExternalId('delivery', at.getTime()),
        endpointId,
        eventId,
        eventType: 'availability.updated',
        payload: JSON.stringify({
          id: eventId,
          type: 'availability.updated',
          occurred_at: at.toISOString(),
          data: {
            object: 'property',
            id: newExternalId('property', at.getTime()),
            from: '2026-11-20',
            to: '2027-11-21',
          },
        }),
      };
    });
    await upsertDeliveries(orm.em.fork(), chunk, at);
  }
  await orm.em.fork().execute('vacuum analyze webhook_delivery');
}

/** The page after the middle of the group, and what its statement cost. */
async function deepPage(): Promise<Cost> {
  const [middle] = await orm.em
    .fork()
    .execute<{ id: string }[]>(
      'select id from webhook_delivery where endpoint_id = ? and created_at = ? order by id desc offset ? limit 1',
      [endpointId, CREATED, SMALL / 2],
    );
  const { sent } = await statementsOf(orm, async () => {
    const page = await deliveriesPage(orm.em.fork(), endpointId, { createdAt: CREATED, id: middle!.id }, LIMIT);
    expect(page).toHaveLength(LIMIT);
    expect(page.every((delivery) => delivery.id < middle!.id)).toBe(true);
  });
  const costs = await readCosts(orm, sent);
  expect(costs.size).toBe(1);
  return [...costs.values()][0]!;
}

test(`a deep page inside ${LARGE} deliveries sharing one created_at reads as much as inside ${SMALL}`, async () => {
  await dispatched(SMALL, CREATED);
  const small = await deepPage();
  await dispatched(LARGE - SMALL, CREATED);
  const large = await deepPage();
  expect(large.seqScans).toEqual([]);
  expect(large.buffers).toBeLessThanOrEqual(small.buffers * 1.5 + 4);
});
