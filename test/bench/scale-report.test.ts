import { describe, expect, test } from 'vitest';
import { caseFigures, startupFigures } from '../../bench/scale-report.ts';

// bench:scale's verdicts against issue 37's goals: a case's median may grow 1.5 times and its
// 99th percentile 2 times from the smallest size measured to the largest; the service serves
// within 30 s of its start at the largest.

/** 100 samples: 99 of `median` and one of `p99` (the 99th percentile of 100 is the last). */
const samples = (median: number, p99: number) => [...Array.from({ length: 99 }, () => median), p99];

describe('a case’s verdict', () => {
  test.each<[string, [number, number], [number, number], string]>([
    ['flat', [10, 20], [10, 20], 'met'],
    ['at both limits', [10, 20], [15, 40], 'met'],
    ['a median past its limit', [10, 20], [15.1, 20], 'missed: median grew 1.51x (goal 1.5x)'],
    ['a p99 past its limit', [10, 20], [10, 41], 'missed: p99 grew 2.05x (goal 2x)'],
  ])('%s', (_case, small, large, goal) => {
    const figures = caseFigures(
      new Map([
        [100, samples(...large)],
        [1, samples(...small)],
      ]),
    );
    expect(figures['1x']).toEqual({ median: small[0], p99: small[1] });
    expect(figures['100x']).toEqual({ median: large[0], p99: large[1] });
    expect(figures.goal).toBe(goal);
  });

  test('one size alone has no growth and no verdict', () => {
    expect(caseFigures(new Map([[10, samples(3, 4)]]))).toEqual({ '10x': { median: 3, p99: 4 } });
  });

  test('the growth is from the smallest size measured to the largest', () => {
    const figures = caseFigures(
      new Map([
        [1, samples(10, 10)],
        [10, samples(30, 30)],
      ]),
    );
    expect(figures['growth 10x/1x']).toEqual({ median: 3, p99: 3 });
  });
});

describe('the start-up’s verdict, at the largest size', () => {
  test.each<[string, [number, number | null][], string]>([
    [
      'within 30 s',
      [
        [1, 9_000],
        [100, 30_000],
      ],
      'met at 100x',
    ],
    [
      'past 30 s',
      [
        [1, 9_000],
        [100, 31_000],
      ],
      'missed at 100x: 31 s (goal 30 s)',
    ],
    [
      'not serving',
      [
        [1, 9_000],
        [100, null],
      ],
      'missed at 100x: not serving after 600 s (goal 30 s)',
    ],
  ])('%s', (_case, starts, goal) => {
    expect(startupFigures(new Map(starts), 600).goal).toBe(goal);
  });
});
