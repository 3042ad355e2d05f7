import type { MikroORM } from '@mikro-orm/postgresql';
import { expect } from 'vitest';
import type { HttpResponse } from './https-client.ts';

/** Every row of the listing tables, to prove that a refused request wrote nothing. */
export async function listingTables(orm: MikroORM): Promise<unknown[]> {
  const em = orm.em.fork();
  return Promise.all([
    em.execute('select * from listing_report order by channel_id, property_id'),
    em.execute('select * from listing_report_change order by seq'),
    em.execute('select * from listing_stat order by channel_id, property_id, day'),
  ]);
}

/** Rows of the event log and of webhook deliveries: reports add none. */
export async function eventAndDeliveryCounts(orm: MikroORM): Promise<{ events: number; deliveries: number }> {
  const [row] = await orm.em
    .fork()
    .execute<{ events: string; deliveries: string }[]>(
      'select (select count(*) from event) as events, (select count(*) from webhook_delivery) as deliveries',
    );
  return { events: Number(row!.events), deliveries: Number(row!.deliveries) };
}

/** The problem body with what differs per request (its id) taken out: identical refusals compare equal. */
export function problemWithoutRequestId(res: HttpResponse): string {
  const id = res.headers['request-id'] as string;
  return res.text.replaceAll(id, '<request-id>');
}

/** The pointers and codes of an `invalid_parameters` answer. */
export function pointers(res: HttpResponse): [string, string][] {
  expect(res.status, res.text).toBe(400);
  return (res.json.errors as { pointer: string; code: string }[]).map((error) => [error.pointer, error.code]);
}
