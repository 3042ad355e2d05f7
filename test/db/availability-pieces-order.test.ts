import { describe, expect, test } from 'vitest';
import { inOrder } from '../../db/availability-nights.ts';

describe('inOrder', () => {
  test('hands rows in their numbers order, an early one waiting for those before it', () => {
    const handed: [string, number][] = [];
    const take = inOrder<string>((row, n) => handed.push([row, n]));
    take(2, 'b');
    expect(handed).toEqual([]);
    take(1, 'a');
    take(4, 'd');
    take(3, 'c');
    expect(handed).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
    expect(take.handed).toBe(4);
  });

  test('rows in order are handed at once', () => {
    const handed: number[] = [];
    const take = inOrder<number>((row) => handed.push(row));
    take(1, 10);
    expect(handed).toEqual([10]);
    take(2, 20);
    expect(handed).toEqual([10, 20]);
  });
});
