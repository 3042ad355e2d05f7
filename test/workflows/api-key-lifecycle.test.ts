import type { MikroORM } from '@mikro-orm/postgresql';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import { revokeKey } from '../../admin/keys.ts';
import { ApiKeySchema } from '../../db/entities/index.ts';
import { systemClock } from '../../domain/clock.ts';
import { createActivities } from '../../activities/index.ts';
import { workflowCodeOptions, workflowSinks } from '../../app/worker.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { adminContext, channelWithKey } from '../support/fixtures.ts';
import { expectProblem } from '../support/problems.ts';
import { uniqueTaskQueue } from '../support/temporal.ts';
import { activityDeps } from '../support/worker.ts';
import { recordHistory, timeSkippingEnvironment } from '../support/time-skipping.ts';

const DAY = 24 * 3600 * 1000;
let env: TestWorkflowEnvironment;
let orm: MikroORM;
let api: TestApi;

beforeAll(async () => {
  env = await timeSkippingEnvironment();
  ({ api, orm } = await apiTestBed({ clock: systemClock, temporal: env.client }));
});

/** Workflow time: the time-skipping server's clock runs ahead of the wall clock as tests skip. */
async function serverNow(): Promise<number> {
  return env.currentTimeMs();
}

async function withWorker<T>(taskQueue: string, body: () => Promise<T>): Promise<T> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...workflowCodeOptions(),
    sinks: workflowSinks(),
    activities: createActivities(activityDeps(orm, { client: env.client, taskQueue })),
  });
  return worker.runUntil(body);
}

describe('API key lifecycle workflow', () => {
  test('marks the key expired when workflow time passes expires_at; the API then answers api_key_expired', async () => {
    const taskQueue = uniqueTaskQueue('key-expiry');
    const ctx = adminContext(orm, env.client, systemClock, taskQueue);
    const expiresAt = new Date((await serverNow()) + 30 * DAY).toISOString();
    const { key } = await channelWithKey(ctx, { expiresAt });
    expect((await api.call('GET', '/api/v1/distribution/channel', { key: key.key })).status).toBe(200);

    const handle = env.client.workflow.getHandle(workflowIds.apiKeyLifecycle(key.id));
    await withWorker(taskQueue, async () => {
      await env.sleep(29 * DAY);
      expect((await orm.em.fork().findOneOrFail(ApiKeySchema, key.id)).expiredAt).toBeNull();
      await env.sleep(2 * DAY);
      expect(await handle.result()).toBe('expired');
    });
    await recordHistory(handle, 'api-key-lifecycle-expired');

    expect((await orm.em.fork().findOneOrFail(ApiKeySchema, key.id)).expiredAt).toBeInstanceOf(Date);
    // The API runs on the real clock, still before expires_at: only the workflow's mark refuses the key.
    expectProblem(await api.call('GET', '/api/v1/distribution/channel', { key: key.key }), 401, 'api_key_expired');
  });

  test('revocation ends the workflow early and the key is never marked expired', async () => {
    const taskQueue = uniqueTaskQueue('key-revoke');
    const ctx = adminContext(orm, env.client, systemClock, taskQueue);
    const { key } = await channelWithKey(ctx, { expiresAt: new Date((await serverNow()) + 90 * DAY).toISOString() });
    const handle = env.client.workflow.getHandle(workflowIds.apiKeyLifecycle(key.id));
    await withWorker(taskQueue, async () => {
      await env.sleep(DAY);
      await revokeKey(ctx, key.id);
      expect(await handle.result()).toBe('revoked');
    });
    await recordHistory(handle, 'api-key-lifecycle-revoked');
    const stored = await orm.em.fork().findOneOrFail(ApiKeySchema, key.id);
    expect(stored.expiredAt).toBeNull();
    expect(stored.revokedAt).toBeInstanceOf(Date);
    expectProblem(await api.call('GET', '/api/v1/distribution/channel', { key: key.key }), 401, 'api_key_revoked');
  });

  test('a key without expiry waits for revocation only', async () => {
    const taskQueue = uniqueTaskQueue('key-forever');
    const ctx = adminContext(orm, env.client, systemClock, taskQueue);
    const { key } = await channelWithKey(ctx);
    const handle = env.client.workflow.getHandle(workflowIds.apiKeyLifecycle(key.id));
    await withWorker(taskQueue, async () => {
      await env.sleep(2 * 365 * DAY);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await revokeKey(ctx, key.id);
      expect(await handle.result()).toBe('revoked');
    });
  });
});
