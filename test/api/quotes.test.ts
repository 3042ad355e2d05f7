import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { NONREF_PLAN, sampleProperty, type Platform } from '../support/catalogue.ts';
import { TestClock } from '../support/clock.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription, productionDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
const TODAY = '2026-11-22';
const RON = (amount: number) => ({ amount, currency: 'RON' });
let api: TestApi;
let ctx: AdminContext;
let host: Platform;
let orm: MikroORM;
let temporal: Client;
let clock: TestClock;

beforeAll(async () => {
  ({ api, clock, ctx, host, orm, temporal } = await apiTestBed({ clock: new TestClock(`${TODAY}T10:00:00Z`) }));
});

const quotes = async (key: string, query: string) => {
  const res = await api.call('GET', `${BASE}/quotes?${query}`, { key });
  expectMatchesDescription('GET', `${BASE}/quotes?${query}`, res);
  return res;
};

let counter = 0;
/** A channel seeing one Romanian property with `flex` (child_price) and `nonref` (age bands), priced 2026-12-20..27. */
async function setup() {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'read:ari'] });
  const prefix = `quo${counter}`;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  const ref = `${prefix}-p`;
  const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
  await host.property(ref, {
    location: `${prefix}-loc`,
    owner: `${prefix}-own`,
    rate_plans: [...(base.rate_plans as any[]), NONREF_PLAN],
  });
  await host.distribute(ref, [channel.name]);
  const res = await host.call('POST', '/availability', {
    updates: [
      {
        property: ref,
        from: '2026-12-20',
        to: '2026-12-27',
        units_available: 1,
        rates: [
          {
            rate_plan: 'flex',
            prices_by_occupancy: [
              { adults: 1, amount: 30000 },
              { adults: 2, amount: 30000 },
              { adults: 3, amount: 36000 },
              { adults: 4, amount: 42000 },
            ],
            child_price: 5000,
            infant_price: 0,
          },
          {
            rate_plan: 'nonref',
            prices_by_occupancy: [
              { adults: 1, amount: 27000 },
              { adults: 2, amount: 27000 },
              { adults: 3, amount: 33000 },
              { adults: 4, amount: 39000 },
            ],
            child_prices: [
              { age_from: 0, age_to: 5, amount: 0 },
              { age_from: 6, age_to: 12, amount: 4000 },
            ],
            infant_price: 0,
          },
        ],
      },
      { property: ref, from: '2026-12-24', to: '2026-12-26', closed_to_departure: true },
    ],
  });
  expect(res.status, res.text).toBe(200);
  const list = await api.call('GET', `${BASE}/properties?limit=10`, { key: key.key });
  const property = list.json.data[0];
  const plans = Object.fromEntries(
    (property.rate_plans as { id: string; name: Record<string, string> }[]).map((plan) => [
      plan.name.ro === 'Flexibil' ? 'flex' : 'nonref',
      plan.id,
    ]),
  );
  return { key: key.key, propertyId: property.id as string, plans };
}

describe('GET /quotes (sandbox)', () => {
  test('one quote per admitting plan, cheapest first, VAT at the rate of the departure date, rounded once', async () => {
    await host.call('PUT', '/vat-rates/RO', { rates: [{ from: '2026-01-01', rate_bp: 900 }] });
    const { key, propertyId, plans } = await setup();
    const res = await quotes(key, `property_id=${propertyId}&arrival=2026-12-21&departure=2026-12-23&adults=2`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual([
      {
        rate_plan_id: plans.nonref,
        total: RON(64000),
        nights: [
          { date: '2026-12-21', price: RON(27000) },
          { date: '2026-12-22', price: RON(27000) },
        ],
        fees_added: [{ type: 'cleaning', per: 'stay', amount: RON(10000) }],
        fees_beside: [],
        vat: { rate_bp: 900, amount: RON(5284) },
      },
      expect.objectContaining({
        rate_plan_id: plans.flex,
        total: RON(70000),
        vat: { rate_bp: 900, amount: RON(5780) },
      }),
    ]);
    // closed_to_departure on 2026-12-24: no plan admits a stay ending then.
    expect(
      (await quotes(key, `property_id=${propertyId}&arrival=2026-12-21&departure=2026-12-24&adults=2`)).json.data,
    ).toEqual([]);
    // Nights without prices: every plan is closed.
    expect(
      (await quotes(key, `property_id=${propertyId}&arrival=2026-12-01&departure=2026-12-03&adults=2`)).json.data,
    ).toEqual([]);
  });

  test('a VAT rise during the stay and a party with children on a plan priced by age band', async () => {
    const { key, propertyId, plans } = await setup();
    const put = await host.call('PUT', '/vat-rates/RO', {
      rates: [
        { from: '2026-01-01', rate_bp: 900 },
        { from: '2026-12-23', rate_bp: 1100 },
      ],
    });
    expect(put.json).toEqual({
      rates: [
        { from: '2026-01-01', rate_bp: 900, applies_to: 'accommodation' },
        { from: '2026-12-23', rate_bp: 1100, applies_to: 'accommodation' },
      ],
    });
    const res = await quotes(
      key,
      `property_id=${propertyId}&arrival=2026-12-21&departure=2026-12-23&adults=2&children=3,8&infants=1`,
    );
    expect(res.status, res.text).toBe(200);
    const nonref = res.json.data.find((quote: { rate_plan_id: string }) => quote.rate_plan_id === plans.nonref);
    // 27000 + 0 (age 3) + 4000 (age 8) + 0 (infant) a night. The night of the 21st was published at
    // 9 % (the rate of the 22nd); the stay is charged 11 %, the rate of its departure date.
    expect(nonref.nights).toEqual([
      { date: '2026-12-21', price: RON(31569) },
      { date: '2026-12-22', price: RON(31000) },
    ]);
    expect(nonref.vat).toEqual({ rate_bp: 1100, amount: RON(7192) });
    expect(nonref.total).toEqual(RON(72569));
    // A child older than every band: only the plan without bands is offered.
    const older = await quotes(
      key,
      `property_id=${propertyId}&arrival=2026-12-21&departure=2026-12-23&adults=2&children=14`,
    );
    expect(older.json.data.map((quote: { rate_plan_id: string }) => quote.rate_plan_id)).toEqual([plans.flex]);
  });

  test('404 for a property the channel does not see, or an id that is not a property id', async () => {
    const { propertyId } = await setup();
    const other = await channelWithKey(ctx, { scopes: ['read:ari'] });
    const stay = 'arrival=2026-12-21&departure=2026-12-23&adults=2';
    expectProblem(await quotes(other.key.key, `property_id=${propertyId}&${stay}`), 404, 'not_found');
    expectProblem(await quotes(other.key.key, `property_id=own_0aaaaaaaaaaaaaaaaaaaaaaaaa&${stay}`), 404, 'not_found');
  });

  test.each([
    ['departure not after arrival', 'arrival=2026-12-23&departure=2026-12-23&adults=2', ['departure']],
    ['an impossible date and no adults', 'arrival=2026-02-30&departure=2026-12-23&adults=0', ['arrival', 'adults']],
    ['children that are not ages', 'arrival=2026-12-21&departure=2026-12-23&adults=2&children=4,x', ['children']],
    ['a child age of an adult', 'arrival=2026-12-21&departure=2026-12-23&adults=2&children=18', ['children']],
    ['negative infants', 'arrival=2026-12-21&departure=2026-12-23&adults=2&infants=-1', ['infants']],
    ["an arrival before the property's today", 'arrival=2026-11-21&departure=2026-11-23&adults=2', ['arrival']],
    ['a stay of more than 365 nights', 'arrival=2026-12-21&departure=2027-12-23&adults=2', ['departure']],
  ])('invalid_parameters: %s', async (_name, stay, parameters) => {
    const { key, propertyId } = await setup();
    const res = await quotes(key, `property_id=${propertyId}&${stay}`);
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors.map((error: { parameter: string }) => error.parameter)).toEqual(parameters);
  });

  test('a departure past the horizon is window_beyond_horizon; read:ari is needed', async () => {
    const { key, propertyId } = await setup();
    const res = await quotes(key, `property_id=${propertyId}&arrival=2027-11-21&departure=2027-11-23&adults=2`);
    expectProblem(res, 400, 'window_beyond_horizon', ['horizon_end']);
    // The horizon availability shows: 365 nights, the night a roll stores past it not quoted.
    expect(res.json.horizon_end).toBe('2027-11-22');
    const catalogOnly = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    expectProblem(
      await quotes(catalogOnly.key.key, `property_id=${propertyId}&arrival=2026-12-21&departure=2026-12-23&adults=2`),
      403,
      'insufficient_scope',
      ['required_scopes'],
    );
  });
});

describe('PUT /internal/v1/vat-rates/{country}', () => {
  test('refuses a bad schedule with one entry per failed rule, and keeps the stored one', async () => {
    await host.call('PUT', '/vat-rates/HU', { rates: [{ from: '2026-01-01', rate_bp: 2700 }] });
    const res = await host.call('PUT', '/vat-rates/HU', {
      rates: [
        { from: '2026-01-01', rate_bp: 10_001 },
        { from: '2026-01-01', rate_bp: 500 },
        { from: 'soon', rate_bp: 5 },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/rates/0/rate_bp',
      '/rates/1/from',
      '/rates/2/from',
    ]);
    expect((await host.call('GET', '/vat-rates/HU')).json).toEqual({
      rates: [{ from: '2026-01-01', rate_bp: 2700, applies_to: 'accommodation' }],
    });
    expectProblem(await host.call('PUT', '/vat-rates/hu', { rates: [] }), 400, 'invalid_parameters', ['errors']);
  });
});

describe('GET /quotes (production)', () => {
  test('answers 501 not_implemented, as the production description marks it', async () => {
    const prodApi = await startTestApi({
      orm,
      temporal,
      clock,
      env: { SVC_ENVIRONMENT: 'production', INTERNAL_PORT: '0' },
    });
    const key = await issueKey(
      { ...ctx, config: { ...ctx.config, environment: 'production' } },
      { channel: (await channelWithKey(ctx, { scopes: ['read:ari'] })).channel.name, scopes: 'read:ari' },
    );
    const path = `${BASE}/quotes?property_id=prp_0aaaaaaaaaaaaaaaaaaaaaaaaa&arrival=2026-12-21&departure=2026-12-23&adults=2`;
    const res = await prodApi.call('GET', path, { key: key.key });
    expectProblem(res, 501, 'not_implemented');
    expectMatchesDescription('GET', path, res, productionDescription);
    expect(productionDescription.paths['/quotes']?.get?.['x-svc-availability']).toBe('planned');
  });
});
