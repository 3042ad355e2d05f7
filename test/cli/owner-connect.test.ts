import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { Client } from '@temporalio/client';
import { allKeys } from '../../db/owner-connect-keys.ts';
import { systemClock } from '../../domain/clock.ts';
import { signingKeyForToken } from '../../services/owner-connect/signing-keys.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET } from '../support/api.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';
import { devServerClient, uniqueTaskQueue } from '../support/temporal.ts';

// `npm run admin -- owner-connect ...` as an operator runs it: a real process on a real database,
// signalling the rotation workflow on the run's Temporal dev server (no worker polls its queue:
// the CLI changes the keys itself, the signal only makes the workflow plan again).

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let env: Record<string, string>;
let orm: Awaited<ReturnType<typeof freshDatabase>>['orm'];
let temporal: Client;
let taskQueue: string;

const admin = (...args: string[]) => runNode('scripts/admin.ts', ['owner-connect', ...args], env);
const KEY_FIELDS = [
  'activated_at',
  'compromised_at',
  'kid',
  'private_destroyed_at',
  'published_at',
  'retired_at',
  'signed_at_once',
  'state',
  'unpublished_at',
];

beforeAll(async () => {
  const db = await freshDatabase();
  orm = db.orm;
  temporal = await devServerClient();
  taskQueue = uniqueTaskQueue('cli-oc-keys');
  env = {
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'silent',
    SERVER_SECRET: TEST_SERVER_SECRET,
    PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
  };
});

describe('npm run admin -- owner-connect', () => {
  test('list-keys, rotate-key and rotate-key --compromised print kid, state and instants, never a private part', async () => {
    const empty = await admin('list-keys');
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual({ data: [] });

    const ctx = adminContext(orm, temporal, systemClock, taskQueue);
    const { kid: first } = await signingKeyForToken(ctx, new Date());

    const before = Date.now();
    const rotated = await admin('rotate-key');
    expect(rotated.code, rotated.stderr).toBe(0);
    const doc = JSON.parse(rotated.stdout);
    expect(doc).toMatchObject({ created: true, rotation_workflow_signalled: true });
    expect(doc.next_kid).not.toBe(first);
    // The new key signs 24 hours after its publication, like a scheduled one.
    expect(Date.parse(doc.signs_from) - before).toBeGreaterThanOrEqual(DAY);
    expect(Date.parse(doc.signs_from) - before).toBeLessThan(DAY + 60_000);
    expect(doc.keys.map((k: { kid: string; state: string }) => [k.kid, k.state])).toEqual([
      [first, 'active'],
      [doc.next_kid, 'published'],
    ]);
    for (const key of doc.keys) expect(Object.keys(key).sort()).toEqual(KEY_FIELDS);
    expect((await temporal.workflow.getHandle(workflowIds.ownerConnectKeys(taskQueue)).describe()).status.name).toBe(
      'RUNNING',
    );

    // Asked again, the pending key stays the next one.
    const again = JSON.parse((await admin('rotate-key')).stdout);
    expect(again).toMatchObject({ next_kid: doc.next_kid, created: false, signs_from: doc.signs_from });

    const emergency = await admin('rotate-key', '--compromised');
    expect(emergency.code, emergency.stderr).toBe(0);
    const withdrawn = JSON.parse(emergency.stdout);
    // The pending key replaces the compromised one at once.
    expect(withdrawn).toMatchObject({ withdrawn_kid: first, next_kid: doc.next_kid, created: false });
    const listed = JSON.parse((await admin('list-keys')).stdout);
    expect(
      listed.data.map((k: { kid: string; state: string; signed_at_once: string | null }) => [
        k.kid,
        k.state,
        k.signed_at_once,
      ]),
    ).toEqual([
      [first, 'withdrawn', 'bootstrap'],
      [doc.next_kid, 'active', 'emergency'],
    ]);
    expect(listed.data[0].compromised_at).not.toBeNull();
    expect(listed.data[0].private_destroyed_at).not.toBeNull();

    // No output holds a private member or a sealed value.
    const sealed = (await allKeys(orm.em.fork()))
      .map((row) => row.privateJwk)
      .filter((value): value is string => value !== null);
    expect(sealed).toHaveLength(1);
    for (const out of [rotated.stdout, emergency.stdout, JSON.stringify(listed)]) {
      expect(out).not.toContain('"d"');
      for (const value of sealed) expect(out).not.toContain(value);
    }
  });

  test('refuses --kid without --compromised and an unknown kid, changing nothing', async () => {
    const keysBefore = await allKeys(orm.em.fork());
    const wrong = await admin('rotate-key', '--kid', 'abc');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--compromised');
    const unknown = await admin('rotate-key', '--compromised', '--kid', 'no-such-kid');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no-such-kid');
    expect(await allKeys(orm.em.fork())).toEqual(keysBefore);
  });
});
