import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { HOST_LOCALES } from '../../domain/host-locale.ts';

/**
 * What docs/channels.md says of the service where a reader acts on it literally: which answers
 * carry the rate-limit headers, which languages the hand-off page speaks, and how to point the
 * guide's commands at a service on another port or data directory.
 */

const guide = readFileSync(path.resolve(import.meta.dirname, '../../docs/channels.md'), 'utf8');

/** The text under a heading, up to the next heading. */
function section(heading: string): string {
  const start = guide.indexOf(`${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const rest = guide.slice(start + heading.length);
  const end = rest.search(/^#{1,6} /m);
  return end === -1 ? rest : rest.slice(0, end);
}

test('step 2 names the answers without RateLimit headers instead of promising them on every answer', () => {
  const step = section('### 2. Who you are');
  expect(step).not.toMatch(/every answer carries/i);
  for (const named of ['a 401', '`too_many_failed_authentications`', '`/owner-connect/keys`', 'the description']) {
    expect(step).toContain(named);
  }
  expect(step).toMatch(/usable key carries the `RateLimit-\*` headers, refusals\s+included/);
});

test('the hand-off page is said to speak every language the service gives it', () => {
  const names = new Intl.DisplayNames(['en'], { type: 'language' });
  const handOff = section('## Owner connect').split('\n2. ')[0]!.replace(/\s+/g, ' ');
  for (const locale of HOST_LOCALES) expect(handOff).toContain(names.of(locale));
  expect(handOff).not.toMatch(/English, or Romanian/);
});

test('the first hour says how to set BASE and CA for another port and data directory', () => {
  const intro = section("## A channel's first hour");
  const bases = [...intro.matchAll(/^BASE=https:\/\/localhost:(\d+)\/api\/v1\/distribution$/gm)].map((m) => m[1]);
  expect(bases).toContain('8443');
  expect(bases.filter((port) => port !== '8443')).toHaveLength(1);
  const other = bases.find((port) => port !== '8443')!;
  const dataDir = new RegExp(`PORT=${other} DATA_DIR=(\\S+)`).exec(intro.replace(/\n/g, ' '))?.[1];
  expect(dataDir).toBeDefined();
  expect(intro).toContain(`CA=${dataDir}/tls/localhost.crt`);
  expect(intro).toContain(`export DATA_DIR=${dataDir}`);
});
