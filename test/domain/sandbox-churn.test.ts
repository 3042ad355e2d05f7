import { describe, expect, test } from 'vitest';
import {
  addCounts,
  CHURN_KINDS,
  CHURN_LAST_OFFSET,
  CHURN_MIX,
  churnChange,
  churnChanges,
  churnedPrice,
  churnedText,
  pickOf,
  type ChurnKind,
} from '../../domain/sandbox/churn.ts';

describe('the sandbox churn: changes from (seed, number)', () => {
  test('the mix holds a thousand in all, and 1,000 changes come out within a few points of it, every kind present', () => {
    expect(Object.values(CHURN_MIX).reduce((a, b) => a + b, 0)).toBe(1000);
    const counts = new Map<ChurnKind, number>();
    for (const change of churnChanges(7, 0, 1000)) counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
    for (const kind of CHURN_KINDS) {
      expect(counts.get(kind) ?? 0, kind).toBeGreaterThan(0);
      // A binomial count's spread: within four standard deviations of the mix.
      const p = CHURN_MIX[kind] / 1000;
      expect(Math.abs((counts.get(kind) ?? 0) - CHURN_MIX[kind]), kind).toBeLessThanOrEqual(
        4 * Math.sqrt(1000 * p * (1 - p)),
      );
    }
  });

  test('a change depends on its seed and number only: the same again, whatever came before', () => {
    const run = churnChanges(3, 0, 200);
    expect(churnChanges(3, 0, 200)).toEqual(run);
    // Resumed half-way (a run continued as new, a churn stopped and started again).
    expect(churnChanges(3, 120, 80)).toEqual(run.slice(120));
    expect(churnChange(3, 57)).toEqual(run[57]);
    expect(run.map((c) => c.number)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // Another seed, other changes.
    expect(churnChanges(4, 0, 200).map((c) => c.kind)).not.toEqual(run.map((c) => c.kind));
  });

  test('its numbers stay in their ranges', () => {
    for (const change of churnChanges(11, 0, 1000)) {
      expect(change.pick).toBeGreaterThanOrEqual(0);
      expect(change.pick).toBeLessThan(1);
      expect(change.offset).toBeGreaterThanOrEqual(0);
      expect(change.offset).toBeLessThanOrEqual(CHURN_LAST_OFFSET);
      expect(change.nights).toBeGreaterThanOrEqual(1);
      expect(change.nights).toBeLessThanOrEqual(14);
      expect(change.percent).toBeGreaterThanOrEqual(80);
      expect(change.percent).toBeLessThanOrEqual(130);
    }
  });

  test('a pick lands on a candidate by its fraction, and on none when there is none', () => {
    expect(pickOf(['a', 'b', 'c', 'd'], { pick: 0 })).toBe('a');
    expect(pickOf(['a', 'b', 'c', 'd'], { pick: 0.5 })).toBe('c');
    expect(pickOf(['a', 'b', 'c', 'd'], { pick: 0.999 })).toBe('d');
    expect(pickOf([], { pick: 0.5 })).toBeUndefined();
  });

  test('an edited text replaces the previous edit, so texts never grow', () => {
    const once = churnedText('Casa Popescu', { number: 4, variant: 1 });
    expect(once).toBe('Casa Popescu · New mattresses (4)');
    const twice = churnedText(once, { number: 90, variant: 0 });
    expect(twice).toBe('Casa Popescu · Renovated this season (90)');
  });

  test('a price is a share of the default, in hundreds of minor units, never under a hundred', () => {
    expect(churnedPrice(25_000, 80)).toBe(20_000);
    expect(churnedPrice(25_000, 130)).toBe(32_500);
    expect(churnedPrice(12_345, 100)).toBe(12_300);
    expect(churnedPrice(50, 80)).toBe(100);
  });

  test('counts add up by kind', () => {
    expect(addCounts({ prices: 2, text: 1 }, { prices: 3, delete: 1 })).toEqual({ prices: 5, text: 1, delete: 1 });
  });
});
