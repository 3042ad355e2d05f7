import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);
const KIT = path.resolve(import.meta.dirname, '../../clients/channel-kit');

/**
 * `npm pack` builds the kit (its `prepack`: tsc into dist/) and packs the JavaScript, the
 * declarations, the README and the manifest, and nothing else; the JavaScript runs on a Node that
 * strips no types, as Node 20 does not.
 */
test('npm pack builds the kit and packs exactly its JavaScript, declarations, README and manifest; its command runs built', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: KIT, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as { files: { path: string }[]; entryCount: number; size: number }[];
  const files = packed!.files.map((file) => file.path).sort();
  // Every source file, as JavaScript and its declarations; the generated types as declarations only.
  const sources = readdirSync(path.join(KIT, 'src'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.slice(0, -'.ts'.length));
  expect(sources).toContain('index');
  expect(files).toEqual(
    [
      'README.md',
      'package.json',
      'dist/generated/schema.d.ts',
      ...sources.flatMap((name) => [`dist/${name}.js`, `dist/${name}.d.ts`]),
    ].sort(),
  );
  console.log(`channel kit tarball: ${packed!.entryCount} files, ${(packed!.size / 1024).toFixed(1)} KiB`);

  const manifest = JSON.parse(readFileSync(path.join(KIT, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest).toMatchObject({
    type: 'module',
    engines: { node: '>=20' },
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    types: './dist/index.d.ts',
  });

  // The built package, imported by its name, with type stripping off.
  const { stdout: names } = await run(
    process.execPath,
    [
      '--no-experimental-strip-types',
      '--input-type=module',
      '-e',
      "const kit = await import('@distribution-service/channel-kit'); console.log(Object.keys(kit).sort().join(' '));",
    ],
    { cwd: KIT },
  );
  expect(names.trim().split(' ')).toEqual(
    expect.arrayContaining([
      'createChannelClient',
      'verifyWebhook',
      'verifyOwnerConnectToken',
      'ChannelSync',
      'ProblemError',
    ]),
  );

  // The command the package installs, from the built JavaScript, with type stripping off.
  expect(manifest.bin).toEqual({ 'channel-kit': './dist/cli.js' });
  const { stdout: version } = await run(
    process.execPath,
    ['--no-experimental-strip-types', 'dist/cli.js', '--version'],
    {
      cwd: KIT,
    },
  );
  expect(version.trim()).toBe(manifest.version);
  expect(readFileSync(path.join(KIT, 'dist/cli.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
});
