import { describe, expect, test } from 'vitest';
import {
  defaultNight,
  nightFromRendered,
  NO_MAXIMUM_STAY,
  patchNight,
  renderNight,
  type PlanShape,
} from '../../domain/availability/nights.ts';

const plans: PlanShape[] = [
  { key: 'flex', currency: 'EUR' },
  { key: 'nonref', currency: 'EUR' },
];

/** The JSON pointers of every null in a value. */
function nullsIn(value: unknown, pointer = ''): string[] {
  if (value === null) return [pointer];
  if (typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
    nullsIn(inner, `${pointer}/${key}`),
  );
}

const closed = defaultNight('2026-12-01', 2, plans);
const priced = patchNight(closed, {
  property: 'p',
  from: '2026-12-01',
  to: '2026-12-02',
  rates: [{ rate_plan: 'flex', prices_by_occupancy: [{ adults: 2, amount: 10000 }] }],
});
const full = patchNight(priced, {
  property: 'p',
  from: '2026-12-01',
  to: '2026-12-02',
  max_stay: 7,
  min_stay: 2,
  rates: [
    {
      rate_plan: 'nonref',
      prices_by_occupancy: [
        { adults: 1, amount: 8000 },
        { adults: 2, amount: 9000 },
      ],
      child_price: 1500,
      infant_price: 0,
      min_stay: 3,
    },
  ],
});

describe('a rendered night answers integers and money, never null', () => {
  test.each([
    ['every plan closed without a price', closed],
    ['one plan priced, one closed', priced],
    ['both priced, with child, infant, stay limits', full],
  ])('%s', (_label, night) => {
    expect(nullsIn(renderNight(night, plans))).toEqual([]);
  });

  test('a closed plan without a price carries no price fields; a plan sets no minimum stay of its own: 1', () => {
    const [rate] = renderNight(closed, plans).rates as Record<string, unknown>[];
    expect(rate).toEqual({
      rate_plan_id: '\u0001flex',
      closed: true,
      prices_by_occupancy: [],
      child_prices: [],
      min_stay: 1,
      closed_to_arrival: false,
    });
  });

  test('no maximum stay is NO_MAXIMUM_STAY (365); a set one is itself', () => {
    expect(NO_MAXIMUM_STAY).toBe(365);
    expect(renderNight(closed, plans).max_stay).toBe(365);
    expect(renderNight(full, plans).max_stay).toBe(7);
  });

  test('a priced plan without child or infant price has neither field; with them, money', () => {
    const [flex, nonref] = renderNight(full, plans).rates as Record<string, unknown>[];
    expect(flex).not.toHaveProperty('child_price');
    expect(flex).not.toHaveProperty('infant_price');
    expect(flex).toMatchObject({
      price: { amount: 10000, currency: 'EUR' },
      base_occupancy: 2,
      extra_guest_price: { amount: 0, currency: 'EUR' },
      min_stay: 1,
    });
    expect(nonref).toMatchObject({
      child_price: { amount: 1500, currency: 'EUR' },
      infant_price: { amount: 0, currency: 'EUR' },
      min_stay: 3,
    });
  });

  test.each([
    ['closed', closed],
    ['priced', priced],
    ['full', full],
  ])('a stored %s night reads back to the same rendering', (_label, night) => {
    const rendered = renderNight(night, plans);
    expect(
      renderNight(nightFromRendered(JSON.parse(JSON.stringify(rendered)) as Record<string, unknown>), plans),
    ).toEqual(rendered);
  });
});
