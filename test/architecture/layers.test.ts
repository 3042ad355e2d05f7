import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The folder layering docs/architecture.md "Layers" describes, held against the code: a
 * value import may only run down this list (type-only imports are erased and may point anywhere).
 * Folders of one rank may not import each other.
 */
const RANK: Record<string, number> = {
  domain: 0,
  db: 1,
  infra: 2,
  workflows: 3,
  services: 4,
  activities: 5,
  api: 6,
  admin: 6,
  app: 7,
  scripts: 8,
  bench: 8,
};
const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 350;
/** Data tables, not logic: the demo catalogue and the amenity list. */
const DATA_TABLES = new Set(['admin/demo-catalogue.ts', 'domain/catalogue/amenities.ts']);

function sources(folder: string): string[] {
  const dir = path.join(ROOT, folder);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && statSync(path.join(dir, file)).isFile())
    .map((file) => path.join(folder, file));
}

const files = Object.keys(RANK).flatMap(sources);

/** Value imports (static, re-exports and dynamic) of a file, as repository-relative paths. */
function valueImports(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms),
    ...text.matchAll(/^\s*import\s+'(\.[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((match) => match[1]!);
  return specifiers.map((specifier) => path.normalize(path.join(path.dirname(file), specifier)));
}

const top = (file: string) => file.split(path.sep)[0]!;

describe('architecture', () => {
  test('value imports between top-level folders only run down the layers', () => {
    const upward = files.flatMap((file) =>
      valueImports(file)
        .filter((target) => top(target) in RANK && top(target) !== top(file) && RANK[top(target)]! >= RANK[top(file)]!)
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  test('no SQL and no EntityManager query outside db/', () => {
    // Statements run by hand, queries through the EntityManager on an entity, and SQL text.
    const query =
      /\.(execute|nativeUpdate|nativeDelete|createQueryBuilder|getKnex)\(|\.(find|findOne|findAll|count|create|upsert)\(\w+Schema\b|[`'"]\s*(select\s.*\sfrom\s|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s)/i;
    const offenders = files
      .filter((file) => top(file) !== 'db' && !['bench', 'scripts'].includes(top(file)))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ file, line, i })),
      )
      .filter(({ line }) => query.test(line) && !line.trim().startsWith('*') && !line.trim().startsWith('//'))
      .map(({ file, i, line }) => `${file}:${i + 1}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });

  test('no ORM entity leaves db/: nothing outside it imports db/entities, not even a type', () => {
    // Repositories return records (db/channels.ts `Channel`, db/api-keys.ts `ApiKey`, …); the
    // entities and their schemas are the unit of work's, and stay behind them.
    const offenders = files
      .filter((file) => top(file) !== 'db')
      .flatMap((file) =>
        [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)]
          .map((match) => path.normalize(path.join(path.dirname(file), match[1] ?? match[2]!)))
          .filter((target) => target.startsWith(path.join('db', 'entities')))
          .map((target) => `${file} -> ${target}`),
      );
    expect(offenders).toEqual([]);
  });

  test('the workflow bundle reaches no zod: workflows and the domain rules they use import none', () => {
    const seen = new Set<string>();
    const withZod: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      if (/^\s*import\s+(?!type\b)[^;]*?from\s+'zod'/m.test(text)) withZod.push(file);
      for (const target of valueImports(file)) visit(target);
    };
    visit(path.join('workflows', 'index.ts'));
    expect(seen.size).toBeGreaterThan(5);
    expect(withZod).toEqual([]);
  });

  test(`no source file over ${MAX_LINES} lines, data tables aside`, () => {
    const long = files
      .filter((file) => !DATA_TABLES.has(file))
      .map((file) => ({ file, lines: readFileSync(path.join(ROOT, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });
});
