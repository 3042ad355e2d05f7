import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const KIT = path.join(ROOT, 'clients/channel-kit');

/**
 * The command the kit's README gives for its tarball, run as written from the repository's root:
 * its `prepack` builds the kit (tsc into dist/), and the tarball, with the JavaScript, the
 * declarations, the README and the manifest and nothing else, lands in the root's dist/. The
 * JavaScript runs on a Node that strips no types, as Node 20 does not.
 */
test("the README's pack command builds the kit and leaves its tarball in dist/, exactly its JavaScript, declarations, README and manifest; its command runs built", async () => {
  const readme = readFileSync(path.join(KIT, 'README.md'), 'utf8');
  const command = readme.split('\n').find((line) => line.includes('npm pack '));
  expect(command).toBe('mkdir -p dist && npm pack --workspace clients/channel-kit --pack-destination dist');
  const { stdout } = await run('sh', ['-c', `${command!} --json`], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as {
    filename: string;
    files: { path: string }[];
    entryCount: number;
    size: number;
  }[];
  const manifest = JSON.parse(readFileSync(path.join(KIT, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(packed!.filename).toBe(`distribution-service-channel-kit-${manifest.version as string}.tgz`);
  expect(readme).toContain('dist/distribution-service-channel-kit-<version>.tgz');
  const tarball = path.join(ROOT, 'dist', packed!.filename);
  const { stdout: listing } = await run('tar', ['-tzf', tarball]);
  const files = listing
    .trim()
    .split('\n')
    .map((file) => file.replace(/^package\//, ''))
    .sort();
  // Every source file, as JavaScript and its declarations; the generated types as declarations only,
  // the generated list of event types as both.
  const sources = readdirSync(path.join(KIT, 'src'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.slice(0, -'.ts'.length));
  expect(sources).toContain('index');
  expect(files).toEqual(
    [
      'README.md',
      'package.json',
      'dist/generated/schema.d.ts',
      'dist/generated/event-types.js',
      'dist/generated/event-types.d.ts',
      ...sources.flatMap((name) => [`dist/${name}.js`, `dist/${name}.d.ts`]),
    ].sort(),
  );
  expect(packed!.files.map((file) => file.path).sort()).toEqual(files);
  console.log(`channel kit tarball: ${packed!.entryCount} files, ${(packed!.size / 1024).toFixed(1)} KiB`);

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
