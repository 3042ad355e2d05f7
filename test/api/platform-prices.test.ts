import { beforeAll, describe, expect, test } from 'vitest';
import type { z } from 'zod';
import type { AdminContext } from '../../admin/context.ts';
import type { PropertyInput } from '../../domain/catalogue/source.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { adults, NONREF_PLAN, sampleProperty, TWO_ADULTS, type Platform } from '../support/catalogue.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { expectMatchesDescription } from '../support/openapi-validator.ts';
import { expectProblem } from '../support/problems.ts';

const BASE = '/api/v1/distribution';
let api: TestApi;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ api, ctx, host } = await apiTestBed());
});

const get = async (key: string, path: string) => {
  const res = await api.call('GET', `${BASE}${path}`, { key });
  expectMatchesDescription('GET', `${BASE}${path}`, res);
  return res;
};

type PropertyBody = z.input<typeof PropertyInput>;
type Capacity = PropertyBody['capacity'];
type Plan = PropertyBody['rate_plans'][number];

const NONREF: Plan = NONREF_PLAN;

let counter = 0;
/** A property for two adults (`flex` without age bands, `nonref` with two) shown to a channel. */
async function setup(count = 1, capacity: Capacity = TWO_ADULTS) {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'read:ari'] });
  const prefix = `pp${counter}`;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  const refs: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const ref = `${prefix}-p${i}`;
    const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
    await host.property(ref, {
      location: `${prefix}-loc`,
      owner: `${prefix}-own`,
      capacity,
      rate_plans: [...(base.rate_plans as Plan[]), NONREF],
    });
    await host.distribute(ref, [channel.name]);
    refs.push(ref);
  }
  const ids = (await get(key.key, '/properties?limit=10')).json.data.map((p: { id: string }) => p.id) as string[];
  return { key: key.key, refs, ids, prefix };
}

const children = [
  { age_from: 0, age_to: 5, amount: 0 },
  { age_from: 6, age_to: 12, amount: 4000 },
];
const errorsOf = (res: { json: { errors: { pointer: string; code: string }[] } }) =>
  res.json.errors.map((e) => `${e.pointer} ${e.code}`).sort();

async function nightsOf(key: string, propertyId: string, from: string, to: string) {
  const res = await get(key, `/availability?property_id=${propertyId}&from=${from}&to=${to}`);
  expect(res.status, res.text).toBe(200);
  return res.json.data[0] as { version: number; data: { date: string; rates: Record<string, unknown>[] }[] };
}

async function availabilityEvents(key: string) {
  return (await get(key, '/events?limit=500')).json.data.filter(
    (e: { type: string }) => e.type === 'availability.updated',
  ) as { data: { id: string; from: string; to: string } }[];
}

describe('POST /internal/v1/availability: a price for every number of adults', () => {
  test('a batch with one rate that does not price each number of adults once is refused whole, one pointer per failed rule', async () => {
    const { key, refs, ids } = await setup(2);
    const eventsBefore = await availabilityEvents(key);
    const before = await nightsOf(key, ids[0]!, '2026-12-20', '2026-12-21');
    const res = await host.call('POST', '/availability', {
      updates: [
        {
          property: refs[0],
          from: '2026-12-20',
          to: '2026-12-21',
          rates: [{ rate_plan: 'flex', prices_by_occupancy: adults(30000, 30000) }],
        },
        {
          property: refs[1],
          from: '2026-12-20',
          to: '2026-12-21',
          rates: [
            {
              rate_plan: 'flex',
              prices_by_occupancy: [
                { adults: 1, amount: 30000 },
                { adults: 1, amount: 31000 },
                { adults: 7, amount: 50000 },
              ],
            },
          ],
        },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(errorsOf(res)).toEqual([
      '/updates/1/rates/0/prices_by_occupancy adults_missing',
      '/updates/1/rates/0/prices_by_occupancy/1/adults adults_repeated',
      '/updates/1/rates/0/prices_by_occupancy/2/adults adults_out_of_range',
    ]);
    // Nothing was written: not the good update of the first property either.
    expect(await nightsOf(key, ids[0]!, '2026-12-20', '2026-12-21')).toEqual(before);
    expect(await availabilityEvents(key)).toEqual(eventsBefore);
  });

  test("child prices follow the plan's age bands and come with the prices for adults on a plan that names bands", async () => {
    const { refs } = await setup();
    const res = await host.call('POST', '/availability', {
      updates: [
        {
          property: refs[0],
          from: '2026-12-20',
          to: '2026-12-21',
          rates: [
            { rate_plan: 'nonref', prices_by_occupancy: adults(27000, 27000) },
            {
              rate_plan: 'flex',
              prices_by_occupancy: adults(30000, 30000),
              child_prices: [{ age_from: 0, age_to: 5, amount: 0 }],
            },
          ],
        },
        {
          property: refs[0],
          from: '2026-12-21',
          to: '2026-12-22',
          rates: [
            {
              rate_plan: 'nonref',
              child_prices: [
                { age_from: 0, age_to: 5, amount: 0 },
                { age_from: 0, age_to: 5, amount: 10 },
                { age_from: 13, age_to: 17, amount: 10 },
              ],
            },
          ],
        },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(errorsOf(res)).toEqual([
      '/updates/0/rates/0/child_prices required',
      '/updates/0/rates/1/child_prices/0 child_band_unknown',
      '/updates/1/rates/0/child_prices child_band_missing',
      '/updates/1/rates/0/child_prices/1 child_band_repeated',
      '/updates/1/rates/0/child_prices/2 child_band_unknown',
    ]);
    const ok = await host.call('POST', '/availability', {
      updates: [
        {
          property: refs[0],
          from: '2026-12-20',
          to: '2026-12-21',
          rates: [{ rate_plan: 'nonref', prices_by_occupancy: adults(27000, 27000), child_prices: children }],
        },
      ],
    });
    expect(ok.status, ok.text).toBe(200);
  });

  test('default_rates that do not price each number of adults once, or miss an age band, are refused and nothing is written', async () => {
    const { prefix } = await setup(0);
    const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
    const [flex] = base.rate_plans as Record<string, unknown>[];
    const res = await host.call('PUT', `/properties/${prefix}-defaults`, {
      ...base,
      capacity: TWO_ADULTS,
      rate_plans: [
        {
          ...flex,
          default_rates: {
            prices_by_occupancy: [
              { adults: 1, amount: 30000 },
              { adults: 1, amount: 31000 },
              { adults: 7, amount: 50000 },
            ],
          },
        },
        { ...NONREF, default_rates: { prices_by_occupancy: adults(27000, 27000), child_prices: [children[0]] } },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(errorsOf(res)).toEqual([
      '/rate_plans/0/default_rates/prices_by_occupancy adults_missing',
      '/rate_plans/0/default_rates/prices_by_occupancy/1/adults adults_repeated',
      '/rate_plans/0/default_rates/prices_by_occupancy/2/adults adults_out_of_range',
      '/rate_plans/1/default_rates/child_prices child_band_missing',
    ]);
    expectProblem(await host.call('GET', `/properties/${prefix}-defaults`), 404, 'not_found');
  });
});

describe('a change of capacity or age bands and the nights priced before it', () => {
  const THREE_ADULTS: Capacity = { ...TWO_ADULTS, max_guests: 4, max_adults: 3 };
  const priced = (rate: Record<string, unknown>) =>
    (rate.prices_by_occupancy as { adults: number }[]).map((p) => p.adults);

  test('fewer adults keep the prices that still apply; more adults, or new bands, close the nights until they are priced again', async () => {
    const { key, refs, ids, prefix } = await setup(1, THREE_ADULTS);
    const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
    const put = (capacity: Capacity, plans: Plan[] = [...(base.rate_plans as Plan[]), NONREF]) =>
      host.property(refs[0]!, { location: `${prefix}-loc`, owner: `${prefix}-own`, capacity, rate_plans: plans });
    const write = await host.call('POST', '/availability', {
      updates: [
        {
          property: refs[0],
          from: '2026-12-20',
          to: '2026-12-22',
          rates: [
            { rate_plan: 'flex', prices_by_occupancy: adults(30000, 30000, 36000), child_price: 5000 },
            { rate_plan: 'nonref', prices_by_occupancy: adults(27000, 27000, 33000), child_prices: children },
          ],
        },
      ],
    });
    expect(write.status, write.text).toBe(200);

    await put(TWO_ADULTS);
    let night = (await nightsOf(key, ids[0]!, '2026-12-20', '2026-12-21')).data[0]!;
    expect(night.rates.map(priced)).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect(night.rates.map((rate) => rate.closed)).toEqual([false, false]);

    const eventsBefore = (await availabilityEvents(key)).length;
    await put(THREE_ADULTS);
    const record = await nightsOf(key, ids[0]!, '2026-12-19', '2026-12-23');
    for (const date of ['2026-12-20', '2026-12-21']) {
      const rates = record.data.find((n) => n.date === date)!.rates;
      expect(rates.map((rate) => [rate.closed, priced(rate)])).toEqual([
        [true, []],
        [true, []],
      ]);
      expect(rates[0]).not.toHaveProperty('price');
      expect(rates[0]).not.toHaveProperty('child_price');
    }
    const announced = (await availabilityEvents(key)).slice(eventsBefore);
    expect(announced.map((e) => e.data)).toEqual([
      expect.objectContaining({ id: ids[0], from: '2026-12-20', to: '2026-12-22' }),
    ]);

    // Priced again for three adults, then the non-refundable plan's bands change: its nights close.
    const again = await host.call('POST', '/availability', {
      updates: [
        {
          property: refs[0],
          from: '2026-12-20',
          to: '2026-12-22',
          rates: [{ rate_plan: 'nonref', prices_by_occupancy: adults(27000, 27000, 33000), child_prices: children }],
        },
      ],
    });
    expect(again.status, again.text).toBe(200);
    await put(THREE_ADULTS, [
      ...(base.rate_plans as Plan[]),
      { ...NONREF, child_age_bands: [{ age_from: 0, age_to: 12 }] },
    ]);
    night = (await nightsOf(key, ids[0]!, '2026-12-20', '2026-12-21')).data[0]!;
    expect(night.rates[1]).toMatchObject({ closed: true, prices_by_occupancy: [], child_prices: [] });
  });
});

describe('a cleaning fee is once per stay', () => {
  test.each(['night', 'guest_night'])('a cleaning fee per %s is refused on write, pointing at its per', async (per) => {
    const { prefix } = await setup(0);
    const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
    const res = await host.call('PUT', `/properties/${prefix}-cleaning-${per}`, {
      ...base,
      fees: [
        { type: 'cleaning', basis: 'fixed', amount: { amount: 1000, currency: 'RON' }, per, payable_at: 'booking' },
      ],
    });
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(errorsOf(res)).toEqual(['/fees/0/per fee_per']);
    expectProblem(await host.call('GET', `/properties/${prefix}-cleaning-${per}`), 404, 'not_found');
  });
});
