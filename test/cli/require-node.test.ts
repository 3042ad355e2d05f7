import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, runNode } from '../support/processes.ts';

const { checkNode } = createRequire(import.meta.url)('../../scripts/require-node.cjs') as {
  checkNode: (version: string) => { ok: boolean; message: string | null };
};

test.each([
  ['20.20.2', false],
  ['22.12.0', false],
  ['23.11.1', false],
  ['24.0.0', true],
  ['24.21.0', true],
  ['25.1.0', true],
])('Node %s runs the project: %s', (version, ok) => {
  const result = checkNode(version);
  expect(result.ok).toBe(ok);
  if (ok) expect(result.message).toBeNull();
  else expect(result.message).toBe(`Node 24+ needed, this shell has Node ${version}; run: source scripts/tools.sh`);
});

test('the preflight passes silently on the Node running the tests', async () => {
  expect(await runNode('scripts/require-node.cjs', [], {})).toEqual({ code: 0, stdout: '', stderr: '' });
});

test('every npm script starts with the preflight', () => {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  for (const [name, command] of Object.entries(scripts))
    expect(command, name).toMatch(/^node scripts\/require-node\.cjs && /);
});
