import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { MAX_LIVE_KEYS } from '../../services/keys.ts';

/**
 * What a reader meets before it matters: the limit on a channel's keys before a guide makes a
 * second one, and the platform's readiness check where the platform guide starts.
 */

const read = (file: string) => readFileSync(path.resolve(import.meta.dirname, '../..', file), 'utf8');
const KEY_ISSUE = /npm run admin -- key issue demo-travel/g;
const LIMIT = /two live keys per\s+environment/;

test('the two-key limit is stated before a guide issues a second key for a channel', () => {
  expect(MAX_LIVE_KEYS).toBe(2);
  // The quick start issues the first key and states the limit right after it, with the way out.
  const readme = read('README.md');
  const first = [...readme.matchAll(KEY_ISSUE)][0]!.index;
  const stated = readme.search(LIMIT);
  expect(stated).toBeGreaterThan(first);
  expect(readme.slice(stated)).toMatch(/key list demo-travel[\s\S]*key revoke <key-id>/);
  // The channels guide's step 1 issues one more: the limit is in that step.
  const guide = read('docs/channels.md');
  const step1 = guide.slice(guide.indexOf('### 1. A key'), guide.indexOf('### 2. Who you are'));
  expect([...step1.matchAll(KEY_ISSUE)]).toHaveLength(1);
  expect(step1).toMatch(LIMIT);
});

test("the platform guide names its readiness check's path before its first operation", () => {
  const guide = read('docs/platform.md');
  const health = guide.indexOf('`GET /health`');
  expect(health).toBeGreaterThan(-1);
  expect(health).toBeLessThan(guide.indexOf('| operation |'));
  expect(guide.slice(health, health + 400)).toMatch(/200[\s\S]*503/);
});
