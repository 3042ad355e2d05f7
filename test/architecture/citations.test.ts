import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { integrationDocument } from '../../api/integration/index.ts';
import { platformDocument } from '../../api/internal/openapi.ts';
import { openApiDocument } from '../../api/openapi/document.ts';

/**
 * Every rule the guides, the reference app, the channel kit and the served descriptions cite is
 * readable where they are read: in `docs/contract.md` (by its anchor, and rule number where one is
 * given), in a page of the repository a link names, or in the served description itself. Nothing
 * cites a file outside the repository.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONTRACT = 'docs/contract.md';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(ext) && !file.split(path.sep).includes('node_modules'))
    .map((file) => path.join(dir, file));
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** A Markdown file's sections by anchor (a repeated heading gets `-1`, `-2`…), each its own text. */
function sections(file: string): Map<string, string> {
  const found = new Map<string, string>();
  let fenced = false;
  let current: { anchor: string; lines: string[] } | null = null;
  const close = () => current && found.set(current.anchor, current.lines.join('\n'));
  for (const line of read(file).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) {
      current?.lines.push(line);
      continue;
    }
    close();
    const base = slug(heading[1]!);
    let anchor = base;
    for (let n = 1; found.has(anchor); n += 1) anchor = `${base}-${n}`;
    current = { anchor, lines: [] };
  }
  close();
  return found;
}

/** The rules a section numbers: its own lines `N. …`. */
const ruleNumbers = (section: string) => new Set([...section.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])));

const contract = sections(CONTRACT);

const MARKDOWN = [
  'README.md',
  ...filesUnder('docs', '.md'),
  ...filesUnder('examples', '.md'),
  'clients/channel-kit/README.md',
  ...filesUnder('api', '.md'),
];
const CODE = ['api', 'services', 'domain', 'examples', 'clients/channel-kit/src'].flatMap((dir) =>
  filesUnder(dir, '.ts'),
);
const SERVED: [string, string][] = [
  ['the distribution description (sandbox)', JSON.stringify(openApiDocument('https://distribution.test', 'sandbox'))],
  [
    'the distribution description (production)',
    JSON.stringify(openApiDocument('https://distribution.test', 'production')),
  ],
  ['the platform description', JSON.stringify(platformDocument('https://distribution.test'))],
  ['the integration description', JSON.stringify(integrationDocument('https://distribution.test'))],
];
/** Every text checked, by where it is read. */
const TEXTS: [string, string][] = [
  ...[...MARKDOWN, ...CODE].map((file): [string, string] => [file, read(file)]),
  ...SERVED,
];

/** `contract.md#anchor` with the rules cited after it (`, rule 3`, `, rules 4 to 6`) or in a link's text before it. */
function contractCitations(text: string): { anchor: string; rules: number[] }[] {
  const cited: { anchor: string; rules: number[] }[] = [];
  const rules = (from?: string, to?: string) =>
    from === undefined ? [] : to === undefined ? [Number(from)] : [Number(from), Number(to)];
  for (const m of text.matchAll(/contract\.md#([\w-]+)(?:`?\)?,? rules? (\d+)(?: (?:to|and) (\d+))?)?/g))
    cited.push({ anchor: m[1]!, rules: rules(m[2], m[3]) });
  for (const m of text.matchAll(
    /\[[^\]]*?\brules? (\d+)(?: (?:to|and) (\d+))?\]\((?:[./]*docs\/)?contract\.md#([\w-]+)\)/g,
  ))
    cited.push({ anchor: m[3]!, rules: rules(m[1], m[2]) });
  return cited;
}

describe('citations', () => {
  test('nothing cites a path outside the repository or the contract by its source file', () => {
    const outside = TEXTS.flatMap(([where, text]) =>
      [...text.matchAll(/\.\.\/shared\/|\bSPEC\.md\b|\bSPEC\b/g)].map((m) => `${where}: ${m[0]}`),
    );
    expect(outside).toEqual([]);
  });

  test('every docs/contract.md anchor cited exists, with the rule numbers cited', () => {
    const broken = TEXTS.flatMap(([where, text]) =>
      contractCitations(text).flatMap(({ anchor, rules }) => {
        const section = contract.get(anchor);
        if (section === undefined) return [`${where}: #${anchor} is not a section of ${CONTRACT}`];
        const numbered = ruleNumbers(section);
        return rules.filter((n) => !numbered.has(n)).map((n) => `${where}: #${anchor} has no rule ${n}`);
      }),
    );
    // Within the page itself: `[versioning](#versioning), rule 2`.
    for (const m of read(CONTRACT).matchAll(/\]\(#([\w-]+)\),? rules? (\d+)/g)) {
      const numbered = contract.has(m[1]!) ? ruleNumbers(contract.get(m[1]!)!) : new Set<number>();
      if (!numbered.has(Number(m[2]))) broken.push(`${CONTRACT}: #${m[1]} has no rule ${m[2]}`);
    }
    expect(TEXTS.filter(([, text]) => contractCitations(text).length > 0).length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  test('rules are cited by docs/contract.md anchors, not by the section names and numbers of another document', () => {
    const governed = TEXTS.filter(([where]) => !where.startsWith('clients/'));
    const old = governed.flatMap(([where, text]) =>
      [
        ...text
          .replace(/contract\.md#[\w-]+`?\)?,? rules? \d+/g, '')
          .replace(/\[[^\]]*\]\((?:[./]*docs\/)?contract\.md#[\w-]+\)/g, '')
          .matchAll(
            /\b(?:receiver|endpoints|keys|availability|versioning|limits|errors|delivery),? (?:rules?|notes?) \d|"?Price of a stay"?,? (?:rule )?\d|\bEndpoints (?:note|table)\b|\(contract[:,] /gi,
          ),
      ].map((m) => `${where}: ${m[0]}`),
    );
    expect(old).toEqual([]);
  });

  test('every relative link of the Markdown pages names a file that exists, and a heading of it', () => {
    const broken = MARKDOWN.flatMap((file) =>
      [
        ...read(file)
          .replace(/```[\s\S]*?```/g, '')
          .matchAll(/\]\(([^)\s]+)\)/g),
      ].flatMap((m) => {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return [];
        const [page, anchor] = target.split('#') as [string, string | undefined];
        const linked = page === '' ? file : path.normalize(path.join(path.dirname(file), page));
        if (!existsSync(path.join(ROOT, linked))) return [`${file}: ${target} (no such file)`];
        if (anchor && linked.endsWith('.md') && !sections(linked).has(anchor))
          return [`${file}: ${target} (no such heading)`];
        return [];
      }),
    );
    expect(broken).toEqual([]);
  });
});

describe('the anchors others cite from outside this repository', () => {
  test('#receiving-webhooks numbers the six receiver rules in their order', () => {
    const rules = [...contract.get('receiving-webhooks')!.matchAll(/^(\d+)\. ([\s\S]*?)(?=^\d+\. |$(?![\s\S]))/gm)];
    expect(rules.map((m) => Number(m[1]))).toEqual([1, 2, 3, 4, 5, 6]);
    const says = [
      /5 minutes/,
      /raw body/,
      /any `v1` signature matches[\s\S]*rotates/,
      /webhook-id/,
      /`version` is higher/,
      /2xx within 10 seconds/,
    ];
    says.forEach((words, i) => expect(rules[i]![2]).toMatch(words));
  });

  test('#versioning, rule 2: new fields and event types appear without a new version', () => {
    const versioning = contract.get('versioning')!;
    expect(/^2\. (.*(?:\n {3}.*)*)/m.exec(versioning)?.[1]).toMatch(
      /New fields[\s\S]*event\s+types[\s\S]*without a new version/,
    );
  });
});
