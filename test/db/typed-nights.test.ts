import { expect, test } from 'vitest';
import {
  Migration20261122190900TypedNights,
  typedNight,
} from '../../db/migrations/Migration20261122190900TypedNights.ts';
import { nightFromRendered, renderNight, type PlanShape } from '../../domain/availability/nights.ts';
import { apiTestBed } from '../support/api-bed.ts';

const plans: PlanShape[] = [
  { key: 'flex', currency: 'RON' },
  { key: 'nonref', currency: 'RON' },
];

// Nights as the renderer stored them before every field was typed (nulls for missing values).
const stored = [
  '{"date":"2026-12-01","units_available":1,"closed_to_arrival":false,"closed_to_departure":false,"rates":[{"rate_plan_id":"\\u0001flex","price":null,"base_occupancy":null,"extra_guest_price":null,"closed":true,"prices_by_occupancy":[],"child_prices":[],"child_price":null,"infant_price":null,"min_stay":null,"closed_to_arrival":false},{"rate_plan_id":"\\u0001nonref","price":null,"base_occupancy":null,"extra_guest_price":null,"closed":true,"prices_by_occupancy":[],"child_prices":[],"child_price":null,"infant_price":null,"min_stay":null,"closed_to_arrival":false}],"min_stay":1,"max_stay":null}',
  '{"date":"2026-12-02","units_available":2,"closed_to_arrival":false,"closed_to_departure":true,"rates":[{"rate_plan_id":"\\u0001flex","price":{"amount":30000,"currency":"RON"},"base_occupancy":2,"extra_guest_price":{"amount":6000,"currency":"RON"},"closed":false,"prices_by_occupancy":[{"adults":2,"price":{"amount":30000,"currency":"RON"}},{"adults":3,"price":{"amount":36000,"currency":"RON"}}],"child_prices":[],"child_price":{"amount":5000,"currency":"RON"},"infant_price":null,"min_stay":3,"closed_to_arrival":true},{"rate_plan_id":"\\u0001nonref","price":null,"base_occupancy":null,"extra_guest_price":null,"closed":true,"prices_by_occupancy":[],"child_prices":[],"child_price":null,"infant_price":null,"min_stay":null,"closed_to_arrival":false}],"min_stay":2,"max_stay":7}',
];

test.each(stored.map((body) => [body.slice(9, 19), body]))(
  'the migration rewrites the night of %s exactly as the renderer writes it now',
  (_date, body) => {
    const upgraded = typedNight(body);
    expect(upgraded).toBe(
      JSON.stringify(renderNight(nightFromRendered(JSON.parse(body) as Record<string, unknown>), plans)),
    );
    expect(upgraded).not.toContain('null');
    expect(typedNight(upgraded)).toBe(upgraded);
  },
);

test('the migration rewrites the stored nights of a database', async () => {
  const { host, orm } = await apiTestBed();
  await host.organization('tn-org');
  await host.owner('tn-own', { organization: 'tn-org' });
  await host.location('tn-loc', { organization: 'tn-org', owner: 'tn-own' });
  await host.property('tn', { location: 'tn-loc', owner: 'tn-own' });
  const em = orm.em.fork();
  const id = (await em.execute<{ id: string }[]>(`select id from property where ref = 'tn'`))[0]!.id;
  const old = stored[0]!.replaceAll('"\\u0001nonref"', '"\\u0001other"').replace('"2026-12-01"', '"2026-12-03"');
  await em.execute(`update ari_night set body = ? where property_id = ? and night = '2026-12-03'`, [old, id]);
  await new Migration20261122190900TypedNights(orm.em.getDriver(), orm.config).up();
  const [row] = await orm.em
    .fork()
    .execute<{ body: string }[]>(`select body from ari_night where property_id = ? and night = '2026-12-03'`, [id]);
  expect(row!.body).toBe(typedNight(old));
  const [untouched] = await orm.em
    .fork()
    .execute<{ n: string }[]>(`select count(*) as n from ari_night where property_id = ? and body like '%null%'`, [id]);
  expect(Number(untouched!.n)).toBe(0);
});
