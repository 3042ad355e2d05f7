/**
 * `npm run bench:text`: how long one text check (`textViolations`, every rule on one host text)
 * takes on the worst texts we can build for each rule, at the longest text a host may send.
 * Prints, per rule, the median and the maximum milliseconds per check, the slowest input, and the
 * machine, as JSON. Exits 1 if any single check takes longer than the budget: host text is
 * judged inside a request, so a slow check holds the API. A check over the budget is run again
 * and counts only if the rerun is over too: the rules are deterministic, so a slow input is slow
 * every time, while a pause of a shared machine (another process, a GC) strikes one check at
 * random. Reruns that came in under the budget are reported as `pauses`.
 *
 * For each rule the inputs (text-rules-inputs.ts) are texts built by hand to make a backtracking
 * pattern rescan the text from every start (a piece repeated, with a tail that almost completes a
 * match), texts of look-alike characters the rules' normalised copy folds or expands (NFKC makes
 * up to eighteen characters of one, so a 10,000-character text can be judged as 180,000), and the
 * slowest of a bounded random search with fast-check over pumped texts (a prefix, a piece of the
 * rule's alphabet repeated to the full length, a suffix). Every input is checked REPEATS times.
 *
 * Options: `--module <file>` benchmarks another copy of the rules (for example the old patterns
 * checked out into /tmp), `--length <characters>` (default 10000), `--budget <ms>` (default 50),
 * `--search <candidates per rule>` (default 150), `--seed <n>` (default 1).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import type { TextRule } from '../domain/catalogue/text.ts';
import { machine } from './machine.ts';
import { hostileInputs } from './text-rules-inputs.ts';

const { values: options } = parseArgs({
  options: {
    module: { type: 'string' },
    length: { type: 'string', default: '10000' },
    budget: { type: 'string', default: '50' },
    search: { type: 'string', default: '150' },
    seed: { type: 'string', default: '1' },
  },
});
const LENGTH = Number(options.length);
const BUDGET_MS = Number(options.budget);
const SEARCH = Number(options.search);
const SEED = Number(options.seed);
const REPEATS = 5;
/** Of the random search, this many slowest candidates per rule join the measured inputs. */
const KEEP = 5;

const moduleUrl = options.module
  ? pathToFileURL(path.resolve(options.module)).href
  : new URL('../domain/catalogue/text.ts', import.meta.url).href;
const { textViolations } = (await import(moduleUrl)) as { textViolations: (text: string) => TextRule[] };

/** `unit` repeated between `prefix` and `suffix` to exactly `length` characters. */
function pump(unit: string, prefix = '', suffix = ''): string {
  const body = Math.max(0, LENGTH - prefix.length - suffix.length);
  return prefix + unit.repeat(Math.ceil(body / unit.length)).slice(0, body) + suffix;
}

const RULES = hostileInputs(pump);

function check(text: string): number {
  const start = performance.now();
  textViolations(text);
  return performance.now() - start;
}

/** Pumped texts of the rule's alphabet, the slowest KEEP of SEARCH candidates. */
function search(alphabet: string[], seed: number): Record<string, string> {
  const piece = (maxLength: number) =>
    fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength, size: 'max' }).map((p) => p.join(''));
  const candidates = fc.sample(fc.tuple(piece(3), piece(6), piece(3)), { numRuns: SEARCH, seed });
  const timed = candidates.map(([prefix, unit, suffix]) => {
    const text = pump(unit, prefix, suffix);
    return {
      name: `search: ${JSON.stringify(prefix)} + ${JSON.stringify(unit)}… + ${JSON.stringify(suffix)}`,
      text,
      ms: check(text),
    };
  });
  timed.sort((a, b) => b.ms - a.ms);
  return Object.fromEntries(timed.slice(0, KEEP).map(({ name, text }) => [name, text]));
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round = (ms: number) => Number(ms.toFixed(3));
const results: Record<string, unknown> = {};
const overBudget: string[] = [];

for (const [index, [rule, { built, alphabet }]] of Object.entries(RULES).entries()) {
  const inputs = { ...built, ...search(alphabet, SEED + index) };
  // Warm up: the first run of a text pays for compiling the code it reaches.
  for (const text of Object.values(inputs)) check(text);
  const samples: number[] = [];
  let worst = { name: '', ms: -1 };
  let over = 0;
  let pauses = 0;
  for (const [name, text] of Object.entries(inputs)) {
    for (let i = 0; i < REPEATS; i += 1) {
      const ms = check(text);
      samples.push(ms);
      if (ms > worst.ms) worst = { name, ms };
      if (ms <= BUDGET_MS) continue;
      if (check(text) > BUDGET_MS) over += 1;
      else pauses += 1;
    }
  }
  if (over > 0) overBudget.push(rule);
  results[rule] = {
    inputs: Object.keys(inputs).length,
    checks: samples.length,
    median_ms: round(median(samples)),
    max_ms: round(Math.max(...samples)),
    slowest: worst.name,
    over_budget: over,
    pauses,
  };
}

console.log(
  JSON.stringify(
    {
      machine: machine(),
      module: options.module ?? 'domain/catalogue/text.ts',
      length: LENGTH,
      budget_ms: BUDGET_MS,
      rules: results,
      over_budget: overBudget,
    },
    null,
    2,
  ),
);
if (overBudget.length > 0) process.exitCode = 1;
