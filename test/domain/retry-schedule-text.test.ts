import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  JITTER_FRACTION,
  NOMINAL_DELAYS_MS,
  RETRY_SPAN_MS,
  STEADY_DELAY_MS,
} from '../../domain/webhooks/retry-schedule.ts';

// The code states the retry schedule through describeSchedule() and its neighbours; the docs and
// the ops files state it in prose. This scans that prose for every sentence giving the schedule's
// delays, its span or its jitter and checks each against the constants, so a changed constant fails
// here until every document says the same.

const ROOT = join(import.meta.dirname, '../..');
const SKIPPED = new Set(['node_modules', 'dist', 'test-artifacts', 'generated', '.git', 'bench']);
const PROSE = /\.(md|ya?ml)$/;

function proseFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return proseFiles(path);
    return PROSE.test(entry.name) ? [path] : [];
  });
}

/**
 * The file's paragraphs, each on one line: a blank line, a heading or a table row ends one; line
 * breaks, indentation, list and quote marks and code quotes are folded away.
 */
function paragraphs(path: string): string[] {
  const blocks: string[][] = [[]];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || /^[#|]/.test(trimmed)) blocks.push([]);
    blocks.at(-1)!.push(trimmed.replace(/^(?:[-*>] |\d+\. )/, ''));
    if (/^[#|]/.test(trimmed)) blocks.push([]);
  }
  return blocks.map((block) => block.join(' ').replace(/[`*]/g, '').replace(/ {2,}/g, ' ').trim()).filter(Boolean);
}

const UNIT_MS: Record<string, number> = {
  m: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};
const DURATION = String.raw`\d+ (?:minutes?|hours?|days?|m|h|d)\b`;
/** Three or more durations in a row, then "then every <duration>": a schedule's delays. */
const SCHEDULE = new RegExp(String.raw`${DURATION}(?:(?:,|,? and) ${DURATION}){2,},? then every ${DURATION}`, 'g');
/** A sentence about retries or the suspension they end in, and the ways it names the retry span. */
const SPAN_SENTENCE = /\bretr|suspen|failed for/i;
const SPAN = new RegExp(
  [
    String.raw`\b(?:for|within|over) (?:the |the same )?(\d+) days?\b`, // "for 3 days", "within the same 3 days"
    String.raw`\b(\d+) days? of (?:retries|failures|its first|the first)`, // "after 3 days of retries"
    String.raw`\b(\d+)-day (?:retry|schedule)`, // "the 3-day retry span", "a sparse 3-day schedule"
    String.raw`retry span \| (\d+) days?`, // the contract's limits table
  ].join('|'),
  'g',
);
/** A sentence about retries or jitter, and the jitter it names: "±20 %", "up to 20 %". */
const JITTER_SENTENCE = /\bretr|jitter/i;
const JITTER = /(?:±|up to )(\d+) ?%/g;

function ms(duration: string): number {
  const [count, unit] = duration.trim().split(' ') as [string, string];
  return Number(count) * UNIT_MS[unit.replace(/s$/, '')]!;
}

const texts = proseFiles(ROOT).flatMap((path) =>
  paragraphs(path).map((text) => ({ file: relative(ROOT, path), text })),
);

/** Each sentence of each file that `about` matches. */
function sentences(about: RegExp): { file: string; text: string }[] {
  return texts.flatMap(({ file, text }) =>
    text
      .split(/(?<=[.!?])\s+(?=[A-Z0-9])/)
      .filter((sentence) => about.test(sentence))
      .map((sentence) => ({ file, text: sentence })),
  );
}

describe('the docs and ops files state the retry schedule of domain/webhooks/retry-schedule.ts', () => {
  const schedules = texts.flatMap(({ file, text }) => [...text.matchAll(SCHEDULE)].map((m) => ({ file, text: m[0] })));

  test('the scan finds the schedule where it is known to be written', () => {
    const where = new Set(schedules.map((s) => s.file));
    for (const file of ['docs/contract.md', 'docs/operations.md', 'docs/architecture.md'])
      expect(where).toContain(file);
  });

  test("every stated schedule has the constants' delays, then every steady delay", () => {
    for (const { file, text } of schedules) {
      const [listed, steady] = text.split(/,? then every /) as [string, string];
      const delays = listed.split(/,? and |, /).map(ms);
      expect({ file, delays, steady: ms(steady) }, text).toEqual({
        file,
        delays: [...NOMINAL_DELAYS_MS],
        steady: STEADY_DELAY_MS,
      });
    }
  });

  test("every stated retry span is the constant's", () => {
    const spans = sentences(SPAN_SENTENCE).flatMap(({ file, text }) =>
      [...text.matchAll(SPAN)].map((m) => ({ file, text, days: Number(m.slice(1).find(Boolean)) })),
    );
    expect(spans.length).toBeGreaterThan(0);
    for (const { file, text, days } of spans) {
      expect({ file, ms: days * UNIT_MS.day! }, text).toEqual({ file, ms: RETRY_SPAN_MS });
    }
  });

  test("every stated jitter is the constant's", () => {
    const jitters = sentences(JITTER_SENTENCE).flatMap(({ file, text }) =>
      [...text.matchAll(JITTER)].map((m) => ({ file, text, percent: Number(m[1]) })),
    );
    expect(jitters.length).toBeGreaterThan(0);
    for (const { file, text, percent } of jitters) {
      expect({ file, percent }, text).toEqual({ file, percent: JITTER_FRACTION * 100 });
    }
  });
});
