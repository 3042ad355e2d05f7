import { ApplicationFailure } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { issueKey } from '../../admin/keys.ts';
import { sandboxChurnActivities } from '../../activities/sandbox-churn.ts';
import { countEvents } from '../../db/catalogue/channel-log.ts';
import { systemClock } from '../../domain/clock.ts';
import { CHURN_KINDS, churnChanges } from '../../domain/sandbox/churn.ts';
import { generateSandbox } from '../../services/sandbox-catalogue.ts';
import { sandboxChurnStatus, startSandboxChurn } from '../../services/sandbox-churn-control.ts';
import { SandboxChurnOnly } from '../../services/sandbox-churn.ts';
import { apiTestBed } from '../support/api-bed.ts';
import { TEST_PLATFORM_TOKEN, TEST_SERVER_SECRET, type TestApi } from '../support/api.ts';
import { runNode } from '../support/processes.ts';
import { activityDeps } from '../support/worker.ts';

// The churn on a real PostgreSQL, the run's Temporal dev server and the service's worker, over a
// generated catalogue of 20 properties, read back by a channel from GET /events over HTTPS.

const BASE = '/api/v1/distribution';
const CHANNELS = ['sbx-travel', 'sbx-stays'];
const SEED = 3;
const CHANGES = 240;

let orm: MikroORM;
let ctx: AdminContext;
let api: TestApi;
let databaseUrl: string;
let temporal: Client;

beforeAll(async () => {
  const bed = await apiTestBed({ taskQueue: 'churn', worker: true, clock: systemClock });
  ({ orm, ctx, api, databaseUrl, temporal } = bed);
  await generateSandbox(ctx, { seed: 2, properties: 20, channels: CHANNELS });
});

type Event = { id: string; type: string; data: { object?: string; id?: string; version?: number } };

async function allEvents(key: string): Promise<Event[]> {
  const events: Event[] = [];
  let path = `${BASE}/events?limit=500`;
  for (let page = 0; page < 100; page += 1) {
    const res = await api.call('GET', path, { key });
    expect(res.status, res.text).toBe(200);
    events.push(...(res.json.data as Event[]));
    if (!res.json.has_more) return events;
    path = `${BASE}/events?limit=500&cursor=${encodeURIComponent(res.json.next_cursor)}`;
  }
  throw new Error('more pages than expected');
}

describe('the sandbox churn', () => {
  test('at a high rate for a bounded run, every kind of change happens and a channel sees versions only increase per record', async () => {
    // The seed's first changes hold every kind (the domain's rule, checked here as the premise).
    const kinds = new Set(churnChanges(SEED, 0, CHANGES).map((c) => c.kind));
    expect([...kinds].sort()).toEqual([...CHURN_KINDS].sort());
    const { key } = await issueKey(ctx, { channel: CHANNELS[0]!, scopes: 'read:catalog,read:ari' });
    const before = (await allEvents(key)).length;

    const started = await startSandboxChurn(ctx, { rate: 100, seed: SEED, channels: CHANNELS, changes: CHANGES });
    expect(started.started).toBe(true);
    await expect
      .poll(async () => (await sandboxChurnStatus(ctx)).running, { timeout: 100_000, interval: 500 })
      .toBe(false);
    const status = await sandboxChurnStatus(ctx);
    expect(status.status).toBe('COMPLETED');
    expect(status.changes).toBe(CHANGES);
    for (const kind of CHURN_KINDS) expect(status.applied[kind] ?? 0, kind).toBeGreaterThan(0);

    const events = await allEvents(key);
    const types = new Set(events.slice(before).map((e) => e.type));
    for (const type of [
      'availability.updated',
      'property.updated',
      'property.withdrawn',
      'property.distributed',
      'property.deleted',
    ])
      expect(types, type).toContain(type);
    // In the log's order, each record's version only increases.
    const last = new Map<string, number>();
    let versioned = 0;
    for (const event of events) {
      const { object, id, version } = event.data;
      if (typeof version !== 'number' || !id) continue;
      const record = `${object} ${id}`;
      expect(version, `${event.type} ${record}`).toBeGreaterThan(last.get(record) ?? 0);
      last.set(record, version);
      versioned += 1;
    }
    expect(versioned).toBeGreaterThan(before);
  });

  test('a churn started again with the same seed goes on from its next change', async () => {
    const again = await startSandboxChurn(ctx, { rate: 100, seed: SEED, channels: CHANNELS, changes: 5 });
    expect(again.started).toBe(true);
    await expect
      .poll(async () => (await sandboxChurnStatus(ctx)).running, { timeout: 60_000, interval: 500 })
      .toBe(false);
    expect((await sandboxChurnStatus(ctx)).changes).toBe(CHANGES + 5);
  });

  test("production: the service, the command and a worker's activity refuse, and nothing is written", async () => {
    const events = await countEvents(orm.em.fork());
    const production = { ...ctx, config: { ...ctx.config, environment: 'production' as const } };
    await expect(startSandboxChurn(production, { rate: 10, seed: 1, channels: CHANNELS })).rejects.toThrow(
      SandboxChurnOnly,
    );
    const refused = await runNode('scripts/admin.ts', ['sandbox', 'churn', 'start', '--rate', '10'], {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      LOG_LEVEL: 'silent',
      SERVER_SECRET: TEST_SERVER_SECRET,
      PLATFORM_TOKEN: TEST_PLATFORM_TOKEN,
      SVC_ENVIRONMENT: 'production',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/only in a sandbox deployment/);
    const deps = activityDeps(orm, { client: temporal, taskQueue: 'unused', environment: 'production' });
    const apply = sandboxChurnActivities(deps).applySandboxChurn({
      channels: CHANNELS,
      changes: churnChanges(SEED, 0, 20),
    });
    await expect(apply).rejects.toThrow(ApplicationFailure);
    await expect(apply).rejects.toMatchObject({ type: 'SandboxOnly', nonRetryable: true });
    expect(await countEvents(orm.em.fork())).toBe(events);
  });
});
