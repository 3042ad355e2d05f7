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

/**
 * `POST /internal/v1/availability` on a plan that names child age bands, with prices for adults
 * and `child_prices` left out (platform interface revision 1.2.0): each night keeps its own band
 * prices, else takes the plan's `default_rates` ones; only where neither exists is it refused.
 */

const BASE = '/api/v1/distribution';
let api: TestApi;
let ctx: AdminContext;
let host: Platform;

beforeAll(async () => {
  ({ api, ctx, host } = await apiTestBed());
});

type Plan = z.input<typeof PropertyInput>['rate_plans'][number];
const bands = (young: number, older: number) => [
  { age_from: 0, age_to: 5, amount: young },
  { age_from: 6, age_to: 12, amount: older },
];
/** The band prices of a served rate, as `[age_from, amount]` pairs. */
const served = (rate: { child_prices: { age_from: number; price: { amount: number } }[] }) =>
  rate.child_prices.map((c) => [c.age_from, c.price.amount]);

let counter = 0;
/** A property for two adults with the `nonref` plan (two bands, no defaults), shown to a channel. */
async function setup() {
  counter += 1;
  const { channel, key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'read:ari'] });
  const prefix = `cp${counter}`;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  const ref = `${prefix}-p`;
  const base = sampleProperty(`${prefix}-loc`, `${prefix}-own`);
  const put = (nonref: Plan) =>
    host.property(ref, {
      location: `${prefix}-loc`,
      owner: `${prefix}-own`,
      capacity: TWO_ADULTS,
      rate_plans: [...(base.rate_plans as Plan[]), nonref],
    });
  await put(NONREF_PLAN);
  await host.distribute(ref, [channel.name]);
  const list = await api.call('GET', `${BASE}/properties?limit=10`, { key: key.key });
  const id = (list.json.data as { id: string }[])[0]!.id;
  const nights = async (from: string, to: string) => {
    const path = `${BASE}/availability?property_id=${id}&from=${from}&to=${to}`;
    const res = await api.call('GET', path, { key: key.key });
    expectMatchesDescription('GET', path, res);
    expect(res.status, res.text).toBe(200);
    type Rate = { closed: boolean; prices_by_occupancy: unknown[]; child_prices: never[] };
    return (res.json.data[0] as { data: { date: string; rates: Rate[] }[] }).data;
  };
  const events = async () =>
    (await api.call('GET', `${BASE}/events?limit=500`, { key: key.key })).json.data.length as number;
  /** Prices `nonref` for adults only (no `child_prices`) on `[from, to)`. */
  const adultsOnly = (from: string, to: string, amount = 28000) =>
    host.call('POST', '/availability', {
      updates: [
        { property: ref, from, to, rates: [{ rate_plan: 'nonref', prices_by_occupancy: adults(amount, amount) }] },
      ],
    });
  return { ref, put, nights, events, adultsOnly };
}

describe('prices for adults without child_prices on a plan with age bands', () => {
  test('are accepted where the night has band prices: it keeps them, and the new adult prices are served', async () => {
    const { ref, nights, adultsOnly } = await setup();
    const first = await host.call('POST', '/availability', {
      updates: [
        {
          property: ref,
          from: '2026-12-20',
          to: '2026-12-22',
          rates: [{ rate_plan: 'nonref', prices_by_occupancy: adults(27000, 27000), child_prices: bands(0, 4000) }],
        },
      ],
    });
    expect(first.status, first.text).toBe(200);
    const res = await adultsOnly('2026-12-20', '2026-12-22', 29000);
    expect(res.status, res.text).toBe(200);
    expect(res.json.results[0].changed_nights).toBe(2);
    for (const night of await nights('2026-12-20', '2026-12-22')) {
      expect(night.rates[1]).toMatchObject({ closed: false, prices_by_occupancy: [{ adults: 1 }, { adults: 2 }] });
      expect((night.rates[1]!.prices_by_occupancy[0] as { price: { amount: number } }).price.amount).toBe(29000);
      expect(served(night.rates[1]!)).toEqual([
        [0, 0],
        [6, 4000],
      ]);
    }
  });

  test('are refused with `required` where no night price and no default is known, and nothing is written', async () => {
    const { ref, nights, events, adultsOnly } = await setup();
    // One night priced with its bands; the next two hold no price at all.
    const priced = await host.call('POST', '/availability', {
      updates: [
        {
          property: ref,
          from: '2026-12-20',
          to: '2026-12-21',
          rates: [{ rate_plan: 'nonref', prices_by_occupancy: adults(27000, 27000), child_prices: bands(0, 4000) }],
        },
      ],
    });
    expect(priced.status, priced.text).toBe(200);
    const before = await nights('2026-12-20', '2026-12-23');
    const eventsBefore = await events();
    const res = await adultsOnly('2026-12-20', '2026-12-23');
    expectProblem(res, 400, 'invalid_parameters', ['errors']);
    expect(res.json.errors).toEqual([
      {
        pointer: '/updates/0/rates/0/child_prices',
        code: 'required',
        detail: expect.stringContaining('the 2 nights from 2026-12-21 hold none to keep') as unknown,
      },
    ]);
    expect(await nights('2026-12-20', '2026-12-23')).toEqual(before);
    expect(await events()).toBe(eventsBefore);
  });

  test("take the plan's default_rates band prices on nights that hold none", async () => {
    const { put, nights, adultsOnly } = await setup();
    expect((await adultsOnly('2026-12-20', '2026-12-22')).status).toBe(400);
    // The platform gives the plan defaults; nights already stored keep holding no price.
    await put({
      ...NONREF_PLAN,
      default_rates: { prices_by_occupancy: adults(20000, 20000), child_prices: bands(500, 3000) },
    });
    expect((await nights('2026-12-20', '2026-12-21'))[0]!.rates[1]).toMatchObject({ closed: true, child_prices: [] });
    const res = await adultsOnly('2026-12-20', '2026-12-22');
    expect(res.status, res.text).toBe(200);
    for (const night of await nights('2026-12-20', '2026-12-22')) {
      expect(night.rates[1]).toMatchObject({ closed: false });
      expect(served(night.rates[1]!)).toEqual([
        [0, 500],
        [6, 3000],
      ]);
    }
  });
});
