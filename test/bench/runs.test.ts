import { describe, expect, test } from 'vitest';
import {
  decimals,
  impossibleFigures,
  jsonDocument,
  mergedDocument,
  mergeRuns,
  spread,
  type Json,
} from '../../bench/runs-merge.ts';

// bench/runs.ts runs a bench N times and prints one document of the runs: each figure the median,
// min and max of the runs, and never a median of a figure that cannot be.

describe('the spread of one figure', () => {
  test.each<[string, number[], { median: number; min: number; max: number }]>([
    ['an odd count: the middle run', [6.3, 6.1, 6.2], { median: 6.2, min: 6.1, max: 6.3 }],
    ['an even count: the mean of the middle two, one decimal more', [6.1, 6.2, 9, 1], { median: 6.15, min: 1, max: 9 }],
    ['integers stay whole when the middle two agree', [41, 42, 42, 43], { median: 42, min: 41, max: 43 }],
    ['no float noise: 0.1 and 0.2', [0.1, 0.2], { median: 0.15, min: 0.1, max: 0.2 }],
    ['one run', [3.25], { median: 3.25, min: 3.25, max: 3.25 }],
  ])('%s', (_case, values, expected) => {
    expect(spread(values)).toEqual(expected);
  });

  test.each([
    [6.25, 2],
    [7, 0],
    [1.5e-7, 8],
    [1e21, 0],
  ])('%d is printed with %d decimals', (value, places) => {
    expect(decimals(value)).toBe(places);
  });
});

describe('merging the runs', () => {
  test('numbers become spreads; equal strings stay, different ones become the list of the runs', () => {
    const runs: Json[] = [
      { ms: { median: 2.5, p95: 4 }, note: 'x', cpu: 'unknown', ok: true },
      { ms: { median: 2.7, p95: 5 }, note: 'x', cpu: 1.5, ok: true },
      { ms: { median: 2.6, p95: 3 }, note: 'x', cpu: 'unknown', ok: false },
    ];
    expect(mergeRuns(runs)).toEqual({
      ms: { median: { median: 2.6, min: 2.5, max: 2.7 }, p95: { median: 4, min: 3, max: 5 } },
      note: 'x',
      cpu: ['unknown', 1.5, 'unknown'],
      ok: [true, true, false],
    });
  });

  test('arrays of one length merge item by item, objects in them too; of different lengths they stay each run’s', () => {
    const runs: Json[] = [
      { codings: [{ pages: 10 }, { pages: 20 }], slow: [1] },
      { codings: [{ pages: 12 }, { pages: 22 }], slow: [1, 2] },
    ];
    expect(mergeRuns(runs)).toEqual({
      codings: [{ pages: { median: 11, min: 10, max: 12 } }, { pages: { median: 21, min: 20, max: 22 } }],
      slow: [[1], [1, 2]],
    });
  });

  test('a key only some runs printed is kept, named with those runs', () => {
    expect(
      mergeRuns([
        { 'at 8.8 writes/s': 5, n: 1 },
        { 'at 9.1 writes/s': 6, n: 1 },
      ]),
    ).toEqual({
      'at 8.8 writes/s (run 1 only)': { median: 5, min: 5, max: 5 },
      'at 9.1 writes/s (run 2 only)': { median: 6, min: 6, max: 6 },
      n: { median: 1, min: 1, max: 1 },
    });
  });

  test('the merged document: the runs, what a figure is, the machine with its load averages as spreads', () => {
    const machine = (load: number[]) => ({ cpu: 'Xeon', cores: 2, load_average: load });
    const document = mergedDocument(
      [
        { machine: machine([1.5, 1.2, 1]), pages: 40 },
        { machine: machine([2.5, 1.4, 1]), pages: 44 },
        { machine: machine([2, 1.3, 1]), pages: 42 },
      ],
      '/tmp/bench-runs-x',
    );
    expect(document).toEqual({
      runs: 3,
      'each figure': '{ median, min, max } of 3 runs',
      raw_runs_dir: '/tmp/bench-runs-x',
      machine: {
        cpu: 'Xeon',
        cores: 2,
        load_average: [
          { median: 2, min: 1.5, max: 2.5 },
          { median: 1.3, min: 1.2, max: 1.4 },
          { median: 1, min: 1, max: 1 },
        ],
      },
      pages: { median: 42, min: 40, max: 44 },
    });
  });

  test('a bench printing a key of the runner’s own is refused rather than overwritten', () => {
    expect(() => mergedDocument([{ runs: 200 }], '/tmp/x')).toThrow(/runs/);
  });
});

describe('figures that cannot be', () => {
  test('a negative number, an infinity, a NaN (null in JSON, or as text) are named with their place', () => {
    const run = JSON.parse(
      '{"ms": {"median": -0.4, "p95": 1e999}, "cpu": [1, "NaN", null], "rate": "-Infinity", "ok": 0}',
    ) as Json;
    expect(impossibleFigures(run)).toEqual([
      { path: '["ms","median"]', value: '-0.4' },
      { path: '["ms","p95"]', value: 'Infinity' },
      { path: '["cpu",1]', value: 'NaN' },
      { path: '["cpu",2]', value: 'null' },
      { path: '["rate"]', value: '-Infinity' },
    ]);
  });

  test("'unknown', other text, booleans and zero are figures that can be", () => {
    expect(impossibleFigures({ postgres_cpu_ms_per_page: 'unknown', slowest: 'search: "a"', ok: true, n: 0 })).toEqual(
      [],
    );
  });

  test('a key listed as possibly negative may be, the others still may not', () => {
    const run: Json = { 'change, %': -3.5, ms: -1 };
    expect(impossibleFigures(run, [/^change\b/])).toEqual([{ path: '["ms"]', value: '-1' }]);
  });
});

describe("a bench's JSON document in its stdout", () => {
  test('the last thing printed, after a banner whose lines are kept apart', () => {
    const stdout = 'Temporal dev server {ready}\n{not json\n{\n  "a": {\n    "b": 1\n  }\n}\n';
    expect(jsonDocument(stdout)).toEqual({
      document: { a: { b: 1 } },
      before: 'Temporal dev server {ready}\n{not json',
    });
  });

  test('a document on one line', () => {
    expect(jsonDocument('{"a":1}\n')).toEqual({ document: { a: 1 }, before: '' });
  });

  test('no document, or something after it: none', () => {
    expect(jsonDocument('listening\n')).toBeNull();
    expect(jsonDocument('{\n  "a": 1\n}\nbye\n')).toBeNull();
  });
});
