/**
 * The pure half of bench/runs.ts: finding a bench's JSON document in what it printed, holding
 * each run to figures that can exist, and merging N runs' documents into one whose every number
 * is the median, min and max of the runs. No processes, no files: bench/runs.ts does those.
 */

/** A parsed JSON value, as a bench prints it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A number of N runs: the median (of an even count, the mean of the middle two), least and most. */
export type Spread = { median: number; min: number; max: number };

/** The keys the runner prints itself, above the merged figures: a bench's own of these would be lost. */
export const RUNNER_KEYS = ['runs', 'each figure', 'raw_runs_dir'] as const;

/** A figure with more decimals than this is printed to this many (2^-53 noise is no figure). */
const MAX_DECIMALS = 10;

/**
 * The keys whose numbers may be below zero. None of the benches prints one today (every figure is
 * a time, a CPU time, a rate, a count, bytes or a ratio of those); a future signed figure, say a
 * "change, %" between two builds, is listed here, so that a negative CPU time stays a bug.
 */
export const MAY_BE_NEGATIVE: readonly RegExp[] = [];

/**
 * Strings that are a number that went wrong: `String(NaN)` and the infinities. Any other string
 * is allowed, 'unknown' in particular (catalogue.ts and availability.ts print it where /proc
 * cannot tell PostgreSQL's CPU).
 */
const IMPOSSIBLE_STRINGS = new Set(['NaN', 'Infinity', '-Infinity']);

const isObject = (value: Json | undefined): value is { [key: string]: Json } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A bench's stdout split into its JSON document (the last thing it prints, opening with a line
 * `{` of its own or a one-line `{…}`) and the lines before it (a dev server's banner and the
 * like), which the runner passes on to stderr. Null when no such document closes the output.
 */
export function jsonDocument(stdout: string): { document: Json; before: string } | null {
  const lines = stdout.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i]!.startsWith('{')) continue;
    try {
      const document = JSON.parse(lines.slice(i).join('\n')) as Json;
      if (isObject(document)) return { document, before: lines.slice(0, i).join('\n') };
    } catch {
      // Not the document: a `{` of the bench's other output. Try the next line.
    }
  }
  return null;
}

/** A figure's place in the document, readable and unambiguous: `["ms","GET /x","median"]`. */
export const formatPath = (path: readonly (string | number)[]): string => JSON.stringify(path);

/**
 * Every figure of a run that cannot be true: a negative number (unless its key is in
 * `mayBeNegative`), a number JSON.parse made infinite, a null (JSON.stringify's NaN and
 * infinities) and the strings "NaN" and "±Infinity". A bench that prints one has a bug (a
 * negative CPU time once came from subtracting counters of different processes): the runner
 * names it and stops instead of taking a median of it.
 */
export function impossibleFigures(
  document: Json,
  mayBeNegative: readonly RegExp[] = MAY_BE_NEGATIVE,
): { path: string; value: string }[] {
  const found: { path: string; value: string }[] = [];
  const visit = (value: Json, path: (string | number)[], key: string) => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...path, i], key));
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) visit(v, [...path, k], k);
    else if (impossible(value, key, mayBeNegative)) found.push({ path: formatPath(path), value: String(value) });
  };
  visit(document, [], '');
  return found;
}

/** Whether one leaf, under the object key `key`, is a figure that cannot be. */
function impossible(value: Json, key: string, mayBeNegative: readonly RegExp[]): boolean {
  if (value === null) return true;
  if (typeof value === 'string') return IMPOSSIBLE_STRINGS.has(value);
  if (typeof value !== 'number') return false;
  if (!Number.isFinite(value)) return true;
  return value < 0 && !mayBeNegative.some((pattern) => pattern.test(key));
}

/** How many decimals a number is printed with (`6.25` → 2, `1.5e-7` → 8, `1e21` → 0). */
export function decimals(value: number): number {
  const [mantissa = '', exponent = '0'] = String(value).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.min(MAX_DECIMALS, Math.max(0, fraction - Number(exponent)));
}

/**
 * The median, min and max of the runs' values of one figure. The median keeps the inputs'
 * precision: their most decimals, one more for the mean of the middle two of an even count.
 */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('a spread of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const even = sorted.length % 2 === 0;
  const places = Math.min(MAX_DECIMALS, Math.max(...values.map(decimals)) + (even ? 1 : 0));
  const median = even ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[middle]!;
  return { median: Number(median.toFixed(places)), min: sorted[0]!, max: sorted.at(-1)! };
}

/** `(run 2 only)`, `(runs 1, 3 only)`: the runs, counted from 1, a key was printed in. */
const onlyIn = (runs: readonly number[]) =>
  `(run${runs.length === 1 ? '' : 's'} ${runs.map((run) => run + 1).join(', ')} only)`;

/**
 * N runs' values of one place in the document, merged: numbers become their spread (or, with
 * `collapseEqualNumbers`, stay as they are where every run printed the same); other leaves equal
 * in every run stay, else become the list of the runs' values; arrays of one length merge item by
 * item, else stay the list of the runs' arrays; objects merge key by key. A key only some runs
 * printed (a rate in a key's text) is kept as `<key> (runs 1, 3 only)`, merged over those runs.
 */
export function mergeRuns(values: readonly Json[], options: { collapseEqualNumbers?: boolean } = {}): Json {
  if (values.every((value) => typeof value === 'number')) {
    const numbers = values as number[];
    if (options.collapseEqualNumbers && numbers.every((n) => n === numbers[0])) return numbers[0]!;
    return spread(numbers);
  }
  if (values.every(Array.isArray)) {
    const arrays = values as Json[][];
    const length = arrays[0]!.length;
    if (!arrays.every((array) => array.length === length)) return [...arrays];
    return Array.from({ length }, (_, i) =>
      mergeRuns(
        arrays.map((array) => array[i]!),
        options,
      ),
    );
  }
  if (values.every(isObject)) return mergeObjects(values, options);
  if (values.every((value) => value === values[0])) return values[0]!;
  return [...values];
}

/** Objects of N runs merged key by key, in the order the keys were first printed. */
function mergeObjects(
  objects: readonly { [key: string]: Json }[],
  options: { collapseEqualNumbers?: boolean },
): { [key: string]: Json } {
  const keys = [...new Set(objects.flatMap((object) => Object.keys(object)))];
  const merged: { [key: string]: Json } = {};
  for (const key of keys) {
    const runs = objects.flatMap((object, run) => (key in object ? [run] : []));
    const value = mergeRuns(
      runs.map((run) => objects[run]![key]!),
      options,
    );
    merged[runs.length === objects.length ? key : `${key} ${onlyIn(runs)}`] = value;
  }
  return merged;
}

/**
 * The runs' machine blocks: what describes the machine (cores, memory) printed once where every run
 * printed it alike, the load averages always as spreads, like every figure.
 */
function mergeMachines(machines: readonly Json[]): Json {
  const merged = mergeRuns(machines, { collapseEqualNumbers: true });
  const loads = machines.map((machine) => (isObject(machine) ? machine.load_average : undefined));
  if (isObject(merged) && loads.every((load) => load !== undefined)) merged.load_average = mergeRuns(loads);
  return merged;
}

/**
 * The one document of N runs: how many, what each figure is, where the runs' own documents are,
 * the machine (its load averages as spreads, what every run printed alike once), then the merged
 * figures. A bench printing one of the runner's keys itself is refused rather than overwritten.
 */
export function mergedDocument(documents: readonly Json[], rawRunsDir: string): { [key: string]: Json } {
  if (documents.length === 0 || !documents.every(isObject)) throw new Error('each run prints one JSON object');
  const objects = documents as { [key: string]: Json }[];
  const clash = RUNNER_KEYS.filter((key) => objects.some((object) => key in object));
  if (clash.length > 0) throw new Error(`the bench prints the runner's own key(s) ${clash.join(', ')}`);
  const machines = objects.map((object) => object.machine);
  const figures = mergeObjects(
    objects.map(({ machine: _machine, ...rest }) => rest),
    {},
  );
  const n = objects.length;
  return {
    runs: n,
    'each figure': `{ median, min, max } of ${n} run${n === 1 ? '' : 's'}`,
    raw_runs_dir: rawRunsDir,
    ...(machines.every((machine) => machine !== undefined) ? { machine: mergeMachines(machines) } : {}),
    ...figures,
  };
}
