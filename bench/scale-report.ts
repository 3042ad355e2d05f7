/**
 * `bench:scale`'s figures: per case and size the median and 99th percentile, the growth from the
 * smallest size measured to the largest, and the verdict against issue 37's goals: every channel
 * read and platform write at most 1.5 times its median and 2 times its 99th percentile from 1x
 * to 100x; the service serving within 30 s of its start at 100k properties.
 */

export const MEDIAN_GROWTH = 1.5;
export const P99_GROWTH = 2;
export const STARTUP_GOAL_S = 30;

export interface Summary {
  median: number;
  p99: number;
}

const at = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const round = (value: number, digits: number) => Number(value.toFixed(digits));

export function summary(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: round(at(sorted, 0.5), 2), p99: round(at(sorted, 0.99), 2) };
}

export const sizeKey = (factor: number) => `${factor}x`;

/**
 * A case's figures at each size, its growth from the smallest size to the largest (when two were
 * measured) and its verdict.
 */
export function caseFigures(bySize: ReadonlyMap<number, readonly number[]>): Record<string, unknown> {
  const figures: Record<string, unknown> = {};
  const summaries = [...bySize]
    .sort(([a], [b]) => a - b)
    .map(([factor, samples]) => [factor, summary(samples)] as const);
  for (const [factor, figure] of summaries) figures[sizeKey(factor)] = figure;
  if (summaries.length < 2) return figures;
  const [low, small] = summaries[0]!;
  const [high, large] = summaries.at(-1)!;
  const growth = { median: round(large.median / small.median, 2), p99: round(large.p99 / small.p99, 2) };
  figures[`growth ${sizeKey(high)}/${sizeKey(low)}`] = growth;
  const missed = [
    ...(growth.median > MEDIAN_GROWTH ? [`median grew ${growth.median}x (goal ${MEDIAN_GROWTH}x)`] : []),
    ...(growth.p99 > P99_GROWTH ? [`p99 grew ${growth.p99}x (goal ${P99_GROWTH}x)`] : []),
  ];
  figures.goal = missed.length === 0 ? 'met' : `missed: ${missed.join(', ')}`;
  return figures;
}

/** Start-up at each size, in seconds, and the verdict at the largest. */
export function startupFigures(bySize: ReadonlyMap<number, number | null>, timeoutS: number): Record<string, unknown> {
  const figures: Record<string, unknown> = {};
  const sizes = [...bySize].sort(([a], [b]) => a - b);
  for (const [factor, ms] of sizes)
    figures[sizeKey(factor)] = ms === null ? `not serving after ${timeoutS} s` : round(ms / 1000, 1);
  const [largest, ms] = sizes.at(-1)!;
  const seconds = ms === null ? Infinity : ms / 1000;
  figures.goal =
    seconds <= STARTUP_GOAL_S
      ? `met at ${sizeKey(largest)}`
      : `missed at ${sizeKey(largest)}: ${ms === null ? `not serving after ${timeoutS} s` : `${round(seconds, 1)} s`} (goal ${STARTUP_GOAL_S} s)`;
  return figures;
}

/** The figures as a table, for a reader of the run's stderr. */
export function table(cases: Record<string, Record<string, unknown>>): string {
  const lines = Object.entries(cases).map(([name, figures]) => {
    const cells = Object.entries(figures).map(([key, value]) =>
      typeof value === 'object' && value !== null
        ? `${key} ${(value as Summary).median}/${(value as Summary).p99}`
        : `${key} ${String(value)}`,
    );
    return `  ${name}: ${cells.join('  ')}`;
  });
  return `median/p99 ms per size, growth, goal:\n${lines.join('\n')}\n`;
}
