import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

// A package under clients/ is installed by channels on its own: its sources import nothing of the
// service (only each other) and no package but the dependencies its manifest declares, and Node's
// own modules only in its Node-only files, listed here (the command, the `./node` entry, theirs).
// That nothing the main entry imports needs Node is held by the kit's tsconfig.library.json.
const NODE_ONLY: Record<string, string[]> = {
  'channel-kit': ['cli.ts', 'node.ts', 'trusting-fetch.ts', 'cursor-file.ts'],
};
test.each(readdirSync(path.join(ROOT, 'clients')))('clients/%s imports only its own files and dependencies', (name) => {
  const dir = path.join(ROOT, 'clients', name);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const declared = new Set(Object.keys(manifest.dependencies ?? {}));
  const src = path.join(dir, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(3);
  const outside = files.flatMap((file) => {
    const text = readFileSync(path.join(src, file), 'utf8');
    return [...text.matchAll(/(?<![\w'"])(?:from|import)\s*\(?\s*'([^']+)'/g)]
      .map((match) => match[1]!)
      .filter((specifier) => !(specifier.startsWith('node:') && (NODE_ONLY[name] ?? []).includes(file)))
      .filter((specifier) =>
        specifier.startsWith('.')
          ? !path.normalize(path.join(path.dirname(path.join(src, file)), specifier)).startsWith(src + path.sep)
          : !declared.has(
              specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!,
            ),
      )
      .map((specifier) => `clients/${name}/src/${file} -> ${specifier}`);
  });
  expect(outside).toEqual([]);
});
