import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { allKeys, type SigningKey } from '../../db/owner-connect-keys.ts';
import { keyState } from '../../domain/owner-connect-keys.ts';
import { rotateKeyEarly } from '../../services/owner-connect/key-rotation.ts';
import { keyTimes, publishedKeySet, signingKeyForToken } from '../../services/owner-connect/signing-keys.ts';
import { createWorkflowClient } from '../../services/workflow-client.ts';
import { ownerConnectKeysChangedSignal } from '../../workflows/definitions.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { ownerConnectKeyRotation } from '../../workflows/owner-connect-key-rotation.ts';
import { freshDatabase } from '../support/database.ts';
import { adminContext } from '../support/fixtures.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { TestClock } from '../support/clock.ts';
import { recordHistory, timeSkippingEnvironment } from '../support/time-skipping.ts';
import { runTestWorker } from '../support/worker.ts';

// The owner-connect key rotation on the time-skipping server against a real Postgres: a 30-day
// period passes in seconds, across publication, switch and retirement; then an early rotation and
// a compromise told to the running workflow by the CLI's signal.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const PERIOD = 30 * DAY;
let env: TestWorkflowEnvironment;
let orm: Awaited<ReturnType<typeof freshDatabase>>['orm'];
let taskQueue: string;
let workflowId: string;
let ctx: AdminContext;
const clock = new TestClock();

beforeAll(async () => {
  env = await timeSkippingEnvironment();
  ({ orm } = await freshDatabase());
  taskQueue = uniqueTaskQueue('oc-keys');
  workflowId = workflowIds.ownerConnectKeys(taskQueue);
  ctx = adminContext(orm, env.client, clock, taskQueue);
  await runTestWorker(env, orm, { taskQueue, replayEveryTask: true });
});

/** Histories through a plain client: time moves only by `env.sleep`. */
const plain = () => new Client({ connection: env.connection });
const plan = () =>
  createWorkflowClient({
    connect: () => Promise.resolve(plain()),
    taskQueue,
    dispatchPollSeconds: 30,
  }).planOwnerConnectKeys(30);

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.round((t?.nanos ?? 0) / 1e6);

/** Waits (bounded, real time) until the workflow sleeps on its `count`-th timer; answers every timer's delay. */
async function sleeping(count: number): Promise<number[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const history = await plain().workflow.getHandle(workflowId).fetchHistory();
    const delays = (history.events ?? [])
      .filter((e) => e.timerStartedEventAttributes)
      .map((e) => ms(e.timerStartedEventAttributes!.startToFireTimeout));
    if (delays.length >= count) return delays;
    if (Date.now() > deadline) throw new Error(`${workflowId} has ${delays.length} timers, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function keys(): Promise<SigningKey[]> {
  return allKeys(orm.em.fork());
}

const time = (instant: Date | null) => (instant === null ? null : instant.getTime());

/**
 * The contract's rule, checked at `at` on what the services answer: the key that signs a token
 * was published at least 24 hours before it started signing, unless it signs at once under the
 * documented bootstrap or emergency; and it is in the set served at that instant.
 */
async function expectSignerRule(at: number): Promise<string> {
  const { kid } = await signingKeyForToken(ctx, new Date(at));
  const row = (await keys()).find((k) => k.kid === kid)!;
  if (row.signedAtOnce === null) expect(time(row.activatedAt)! - time(row.publishedAt)!).toBeGreaterThanOrEqual(DAY);
  expect((await publishedKeySet(ctx, new Date(at))).keys.map((k) => k.kid)).toContain(kid);
  return kid;
}

describe('owner-connect key rotation workflow', () => {
  test('bootstraps the first key, publishes the next a day before the period ends, switches 24 h later and drops the retired key 24 h after that', async () => {
    const start = await env.currentTimeMs();
    await plan();
    await plan(); // a second start (another worker) is a signal to the same run

    // Bootstrap: the deployment's first key signs at once; the next look is at period − 1 day.
    let delays = await sleeping(1);
    const [first] = await keys();
    expect(first).toMatchObject({ signedAtOnce: 'bootstrap' });
    expect(time(first!.activatedAt)).toBe(time(first!.publishedAt));
    expect(Math.abs(time(first!.activatedAt)! - start)).toBeLessThan(MINUTE);
    expect(Math.abs(delays.at(-1)! - (PERIOD - DAY))).toBeLessThan(MINUTE);
    const activatedAt = time(first!.activatedAt)!;
    expect(await expectSignerRule(activatedAt)).toBe(first!.kid);

    // Publication of the next key, which waits 24 h before it signs.
    await env.sleep(activatedAt + PERIOD - DAY + MINUTE / 2 - (await env.currentTimeMs()));
    delays = await sleeping(delays.length + 1);
    let all = await keys();
    expect(all).toHaveLength(2);
    const next = all[1]!;
    const publishedAt = time(next.publishedAt)!;
    expect(publishedAt - (activatedAt + PERIOD - DAY)).toBeGreaterThanOrEqual(0);
    expect(publishedAt - (activatedAt + PERIOD - DAY)).toBeLessThan(MINUTE);
    expect(next.activatedAt).toBeNull();
    expect(Math.abs(delays.at(-1)! - DAY)).toBeLessThan(MINUTE);
    expect(await expectSignerRule(publishedAt + DAY - 1)).toBe(first!.kid);

    // The switch: exactly one signer, the new one published exactly 24 h before.
    await env.sleep(DAY);
    delays = await sleeping(delays.length + 1);
    all = await keys();
    const [old, current] = [all.find((k) => k.kid === first!.kid)!, all.find((k) => k.kid === next.kid)!];
    const switchedAt = time(current.activatedAt)!;
    expect(switchedAt - publishedAt).toBeGreaterThanOrEqual(DAY);
    expect(switchedAt - publishedAt).toBeLessThan(DAY + MINUTE);
    expect(time(old.retiredAt)).toBe(switchedAt);
    expect(time(old.unpublishedAt)).toBe(switchedAt + DAY);
    expect(current.signedAtOnce).toBeNull();
    expect(all.filter((k) => keyState(keyTimes(k), new Date(switchedAt)) === 'active')).toHaveLength(1);
    expect(Math.abs(delays.at(-1)! - DAY)).toBeLessThan(MINUTE);
    expect(await expectSignerRule(switchedAt)).toBe(next.kid);
    expect((await publishedKeySet(ctx, new Date(switchedAt + DAY - 1))).keys.map((k) => k.kid)).toEqual([
      first!.kid,
      next.kid,
    ]);

    // Retirement ends: the old key leaves the set and its private part is destroyed; the row stays.
    await env.sleep(DAY);
    delays = await sleeping(delays.length + 1);
    all = await keys();
    expect(all.find((k) => k.kid === first!.kid)).toMatchObject({ privateJwk: null });
    expect(time(all.find((k) => k.kid === first!.kid)!.privateDestroyedAt)! - (switchedAt + DAY)).toBeLessThan(MINUTE);
    expect((await publishedKeySet(ctx, new Date(switchedAt + DAY))).keys.map((k) => k.kid)).toEqual([next.kid]);
    // Next: the successor's publication, a day before this key's period ends.
    expect(Math.abs(delays.at(-1)! - (PERIOD - 2 * DAY))).toBeLessThan(MINUTE);

    await recordHistory(plain().workflow.getHandle(workflowId), 'owner-connect-key-rotation');
  });

  test("an operator's early rotation publishes a key now; signalled, the workflow switches to it 24 h later", async () => {
    const now = await env.currentTimeMs();
    const before = await expectSignerRule(now);
    const rotation = await rotateKeyEarly(ctx, { at: new Date(now), compromised: false });
    expect(rotation).toMatchObject({ created: true, signsFrom: new Date(now + DAY).toISOString() });
    const timersBefore = (await sleeping(1)).length;
    await plan();
    const delays = await sleeping(timersBefore + 1);
    expect(Math.abs(delays.at(-1)! - DAY)).toBeLessThan(MINUTE);

    // Still the old key until 24 h have passed: never a key published less than 24 h before.
    await env.sleep(DAY - HOUR);
    expect(await expectSignerRule(await env.currentTimeMs())).toBe(before);
    await env.sleep(HOUR);
    await sleeping(timersBefore + 2);
    const switched = (await keys()).find((k) => k.kid === rotation.kid)!;
    expect(time(switched.activatedAt)! - time(switched.publishedAt)!).toBeGreaterThanOrEqual(DAY);
    expect(await expectSignerRule(time(switched.activatedAt)!)).toBe(rotation.kid);
  });

  test('a compromised key is withdrawn at once and a new key signs at once; the workflow plans from the new key', async () => {
    const now = await env.currentTimeMs();
    const compromised = await expectSignerRule(now);
    const timersBefore = (await sleeping(1)).length;
    const rotation = await rotateKeyEarly(ctx, { at: new Date(now), compromised: true });
    expect(rotation).toMatchObject({ withdrawn: compromised, created: true });
    await plan();
    const delays = await sleeping(timersBefore + 1);
    const all = await keys();
    const replacement = all.find((k) => k.kid === rotation.kid)!;
    expect(replacement.signedAtOnce).toBe('emergency');
    expect((await publishedKeySet(ctx, new Date(now))).keys.map((k) => k.kid)).not.toContain(compromised);
    expect(all.find((k) => k.kid === compromised)).toMatchObject({ privateJwk: null });
    // The next regular step: the successor of the replacement, a day before its period ends
    // (or sooner: the private part of the key retired by the previous switch, when still due).
    expect(delays.at(-1)!).toBeLessThanOrEqual(PERIOD - DAY);
    expect(await expectSignerRule(now)).toBe(rotation.kid);
    // The same run as the first test's, now with the early rotation's and the compromise's signals.
    await recordHistory(plain().workflow.getHandle(workflowId), 'owner-connect-key-rotation-signalled');
  });

  test('continues as new after its wakes, keeping the period the last signal set', async () => {
    await plain().workflow.getHandle(workflowId).terminate('test: restart with two wakes per run');
    const started = await plain().workflow.start(ownerConnectKeyRotation, {
      workflowId,
      taskQueue,
      args: [{ rotationDays: 30, wakesPerRun: 2 }],
    });
    await sleeping(1);
    await plain().workflow.getHandle(workflowId).signal(ownerConnectKeysChangedSignal, { rotationDays: 10 });
    await sleeping(2);
    // The key retired by the last regular switch is due to lose its private part; that wake is
    // the run's second and last.
    const retired = (await keys()).find((k) => k.privateJwk !== null && k.unpublishedAt !== null)!;
    await env.sleep(time(retired.unpublishedAt)! + MINUTE - (await env.currentTimeMs()));
    const deadline = Date.now() + 15_000;
    let handle = plain().workflow.getHandle(workflowId);
    while ((await handle.describe()).runId === started.firstExecutionRunId) {
      if (Date.now() > deadline) throw new Error('the run did not continue as new');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    handle = plain().workflow.getHandle(workflowId);
    // The next run plans with the 10-day period from the signal: the signer's successor is
    // published a day before its 10 days end (with 30 days it would be 29).
    const delays = await sleeping(1);
    const signer = (await keys()).find((k) => k.activatedAt !== null && k.retiredAt === null)!;
    const createAt = time(signer.activatedAt)! + 10 * DAY - DAY;
    expect(Math.abs(delays[0]! - (createAt - (await env.currentTimeMs())))).toBeLessThan(2 * MINUTE);
    expect((await keys()).find((k) => k.kid === retired.kid)).toMatchObject({ privateJwk: null });
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });
});
