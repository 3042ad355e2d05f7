import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

// The reference channel app is what a channel developer copies: it is written from the contract
// and the channel kit alone, so it imports nothing of the service (only its own files, public
// packages, and the kit's entry point, which a channel imports by its package name).
const KIT = path.join('clients', 'channel-kit', 'src', 'index.ts');

test('examples/ import nothing of the service, and of the kit only its entry point', () => {
  const dir = path.join(ROOT, 'examples');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(3);
  const outside = files.flatMap((file) => {
    const text = readFileSync(path.join(dir, file), 'utf8');
    return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)]
      .map((match) => path.normalize(path.join(path.dirname(path.join('examples', file)), match[1]!)))
      .filter((target) => !target.startsWith(`examples${path.sep}`) && target !== KIT)
      .map((target) => `examples/${file} -> ${target}`);
  });
  expect(outside).toEqual([]);
});
