import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, test } from 'vitest';
import { catalogueCommands } from '../../admin/catalogue-reprojection.ts';
import type { AdminContext } from '../../admin/context.ts';
import { systemClock } from '../../domain/clock.ts';
import { projectionRevision, startCatalogueReprojection } from '../../services/catalogue-reprojection.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { channelShown, type Platform } from '../support/catalogue.ts';
import { cloneProperty, templateOf } from '../support/clones.ts';
import { recordHistory } from '../support/time-skipping.ts';

// The catalogue's re-projection after a deploy, on a real Postgres, the run's Temporal dev server
// and the service's worker, read back by a channel over HTTPS. "A field added between two runs":
// the channel's stored records are made as an earlier projection made them (without `area_sqm`,
// which this code's projection writes), and the database's last re-projection is an earlier
// revision's, as after a deploy that added the field.

const BASE = '/api/v1/distribution';
const PROPERTIES = 40;

let orm: MikroORM;
let ctx: AdminContext;
let host: Platform;
let api: TestApi;
let temporal: Client;
let taskQueue: string;
let revision: string;

beforeAll(async () => {
  const bed = await apiTestBed({
    taskQueue: 'reprojection',
    worker: true,
    clock: systemClock,
    env: { HORIZON_ROLLS_FROM_API: 'false' },
  });
  ({ orm, ctx, host, api, temporal } = bed);
  taskQueue = bed.taskQueue!;
  revision = await projectionRevision();
});

/** A fresh channel shown `count` properties: one written through the platform interface, the others copied. */
async function catalogue(count: number) {
  const shown = await channelShown(ctx, host, ['t']);
  const template = await templateOf(orm.em.fork(), shown.ref('t'));
  await cloneProperty(orm.em.fork(), template, 1, count - 1, { nights: false });
  return { key: shown.key, channelId: template.channelId };
}

/** The channel's records as an earlier projection wrote them (no `area_sqm`), re-projected last for an earlier revision. */
async function asBeforeTheDeploy(channelId: string): Promise<void> {
  const em = orm.em.fork();
  await em.execute(
    `update channel_resource set body = (body::jsonb - 'area_sqm')::json where channel_id = ? and kind = 'property'`,
    [channelId],
  );
  await em.execute('delete from catalogue_reprojection');
  await em.execute(
    `insert into catalogue_reprojection (revision, after, visited, written, started_at, finished_at)
     values (?, null, 0, 0, now(), now())`,
    ['0'.repeat(64)],
  );
}

type Served = { id: string; version: number; area_sqm?: unknown };

/** Every property the channel reads, by its id, over HTTPS. */
async function served(key: string): Promise<Map<string, Served>> {
  const found = new Map<string, Served>();
  let path = `${BASE}/properties?limit=100`;
  for (let page = 0; page < 10; page += 1) {
    const res = await api.call('GET', path, { key });
    expect(res.status).toBe(200);
    for (const record of res.json.data as Served[]) found.set(record.id, record);
    if (!res.json.next_cursor) return found;
    path = `${BASE}/properties?limit=100&cursor=${encodeURIComponent(res.json.next_cursor)}`;
  }
  throw new Error('more pages than expected');
}

/** The channel's `property.updated` events over HTTPS: each record's id and version. */
async function propertyUpdates(key: string): Promise<{ id: string; version: number }[]> {
  const updates: { id: string; version: number }[] = [];
  let path = `${BASE}/events?limit=500`;
  for (let page = 0; page < 10; page += 1) {
    const res = await api.call('GET', path, { key });
    expect(res.status).toBe(200);
    for (const event of res.json.data as { type: string; data: { id: string; version: number } }[])
      if (event.type === 'property.updated') updates.push({ id: event.data.id, version: event.data.version });
    if (!res.json.has_more) return updates;
    path = `${BASE}/events?limit=500&cursor=${encodeURIComponent(res.json.next_cursor)}`;
  }
  throw new Error('more pages than expected');
}

const pass = () => temporal.workflow.getHandle(workflowIds.catalogueReprojection(taskQueue, revision)).result();

describe('catalogue re-projection', () => {
  test('after a deploy that adds a field, every record the channel holds gets it with a higher version and its property.updated event; a second pass writes nothing', async () => {
    const { key, channelId } = await catalogue(PROPERTIES);
    await asBeforeTheDeploy(channelId);
    const before = await served(key);
    expect(before.size).toBe(PROPERTIES);
    for (const record of before.values()) expect(record).not.toHaveProperty('area_sqm');
    const updatesBefore = await propertyUpdates(key);

    // What a worker's start does.
    await startCatalogueReprojection(ctx, 1_000);
    expect(await pass()).toBeGreaterThanOrEqual(PROPERTIES);
    await recordHistory(
      temporal.workflow.getHandle(workflowIds.catalogueReprojection(taskQueue, revision)),
      'catalogue-reprojection',
    );

    const after = await served(key);
    for (const [id, record] of after) {
      expect(record, id).toHaveProperty('area_sqm');
      expect(record.version, id).toBeGreaterThan(before.get(id)!.version);
    }
    const announced = (await propertyUpdates(key)).slice(updatesBefore.length);
    expect(announced.map((u) => `${u.id}@${u.version}`).sort()).toEqual(
      [...after.values()].map((r) => `${r.id}@${r.version}`).sort(),
    );
    const status = (await catalogueCommands.reprojection([], ctx)) as Record<string, unknown>;
    expect(status).toMatchObject({ revision, running: false, left: 0, written: PROPERTIES });
    expect(status.finished_at).not.toBeNull();

    // A worker start with the revision finished asks for nothing; an operator's pass over again changes nothing.
    await startCatalogueReprojection(ctx, 1_000);
    expect(await catalogueCommands.reproject(['--again', '--rate', '1000'], ctx)).toMatchObject({ running: true });
    await pass();
    expect((await catalogueCommands.reprojection([], ctx)) as Record<string, unknown>).toMatchObject({ written: 0 });
    const again = await served(key);
    for (const [id, record] of again) expect(record.version, id).toBe(after.get(id)!.version);
    expect(await propertyUpdates(key)).toHaveLength(updatesBefore.length + PROPERTIES);
  });

  test('a pass terminated mid-way and started again goes on from its committed cursor: each record is re-projected once', async () => {
    const { key, channelId } = await catalogue(PROPERTIES);
    await asBeforeTheDeploy(channelId);
    const updatesBefore = (await propertyUpdates(key)).length;
    // Five properties a second: a batch of five, then a timer; the operator terminates it after the first batch.
    await startCatalogueReprojection(ctx, 5);
    const handle = temporal.workflow.getHandle(workflowIds.catalogueReprojection(taskQueue, revision));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = (await catalogueCommands.reprojection([], ctx)) as { visited: number };
      if (status.visited > 0) break;
      if (Date.now() > deadline) throw new Error('no batch committed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await handle.terminate('an operator stopped it');
    const stopped = (await catalogueCommands.reprojection([], ctx)) as {
      visited: number;
      left: number;
      running: boolean;
    };
    expect(stopped.running).toBe(false);
    expect(stopped.visited).toBeLessThan(PROPERTIES + 3);
    expect(stopped.left).toBeGreaterThan(0);

    // The next worker start goes on, at a faster pace.
    await startCatalogueReprojection(ctx, 1_000);
    await pass();
    const after = await served(key);
    for (const record of after.values()) expect(record).toHaveProperty('area_sqm');
    const announced = (await propertyUpdates(key)).slice(updatesBefore);
    expect(announced).toHaveLength(PROPERTIES);
    expect(new Set(announced.map((u) => u.id)).size).toBe(PROPERTIES);
  });

  test('a database with no re-projection at all takes the starting code as its baseline and starts no pass', async () => {
    await orm.em.fork().execute('delete from catalogue_reprojection');
    await startCatalogueReprojection(ctx, 1_000);
    const rows = await orm.em
      .fork()
      .execute<{ revision: string; finished_at: Date | null }[]>(
        'select revision, finished_at from catalogue_reprojection',
      );
    expect(rows.map((row) => row.revision)).toEqual([revision]);
    expect(rows[0]!.finished_at).not.toBeNull();
    expect(await ctx.workflows.catalogueReprojectionRunning(revision)).toBe(false);
  });
});
