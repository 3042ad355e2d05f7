import type { AppDeps } from '../api/context.ts';
import { internalOperations } from '../api/internal/catalogue.ts';
import { invokeOperation } from '../api/interface-router.ts';
import { ProblemError } from '../domain/problems.ts';
import { localDate } from '../domain/time.ts';
import { createChannel } from './channels.ts';
import type { AdminContext } from './context.ts';
import { demoAvailability } from './demo-availability.ts';
import { DEMO_CHANNELS, demoCatalogue } from './demo-catalogue.ts';
import { AdminError } from './errors.ts';

const GROUP: Record<string, string> = { putOrganization: 'organizations', putOwner: 'owners', putLocation: 'locations', putProperty: 'properties' };

/** The demo's certificates are dated from the day it was first loaded, so a later run changes nothing. */
const ANCHOR_ZONE = 'Europe/Bucharest';

async function count(ctx: AdminContext, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await ctx.orm.em.fork().execute<{ n: string }[]>(sql, params);
  return Number(row?.n ?? 0);
}

/**
 * `seed demo`: the demo catalogue written through the platform write interface's own operations
 * (same validation, same handlers, in-process), distributed to two demo channels created when
 * missing. Every write is an idempotent PUT, so a second run writes nothing.
 */
export async function seedDemo(ctx: AdminContext) {
  const channels = [];
  for (const name of [DEMO_CHANNELS.first, DEMO_CHANNELS.second]) {
    const exists = (await count(ctx, 'select count(*) as n from channel where name = ?', [name])) > 0;
    if (!exists) await createChannel(ctx, { name, rateLimit: 600, redirectUrl: `https://${name}.example/owner-connect` });
    channels.push({ name, created: !exists });
  }

  const [anchor] = await ctx.orm.em.fork().execute<{ created_at: string }[]>(`select min(created_at) as created_at from organization where ref like 'demo-%'`);
  const today = localDate(anchor?.created_at ? new Date(anchor.created_at) : ctx.clock.now(), ANCHOR_ZONE);
  const writes = demoCatalogue(DEMO_CHANNELS, today);

  const deps: AppDeps = ctx;
  const eventsBefore = await count(ctx, 'select count(*) as n from event');
  const written: Record<string, string[]> = { organizations: [], owners: [], locations: [], properties: [] };
  const distribution: Record<string, string[]> = {};
  for (const write of writes) {
    const operation = internalOperations.find((op) => op.operationId === write.operationId);
    if (!operation) throw new Error(`seed: no operation ${write.operationId}`);
    try {
      await invokeOperation(operation, deps, { params: { ref: write.ref }, body: write.body });
    } catch (error) {
      if (error instanceof ProblemError) throw new AdminError(`${write.operationId} ${write.ref}: ${error.code} ${JSON.stringify(error.extras.errors ?? error.extras.detail ?? '')}`);
      throw error;
    }
    if (write.operationId === 'putDistribution') distribution[write.ref] = (write.body as { channels: string[] }).channels;
    else written[GROUP[write.operationId]!]!.push(write.ref);
  }
  // A year of nights and prices, in batches the platform interface takes.
  const availability = demoAvailability(writes, localDate(ctx.clock.now(), ANCHOR_ZONE));
  const postAvailability = internalOperations.find((op) => op.operationId === 'postAvailability')!;
  let nightsChanged = 0;
  for (let i = 0; i < availability.length; i += 1000) {
    const result = await invokeOperation(postAvailability, deps, { body: { updates: availability.slice(i, i + 1000) } });
    nightsChanged += (result.body as { results: { changed_nights: number }[] }).results.reduce((sum, r) => sum + r.changed_nights, 0);
  }
  return {
    channels,
    availability: { updates: availability.length, nights_changed: nightsChanged },
    ...written,
    distribution,
    channel_changes: (await count(ctx, 'select count(*) as n from event')) - eventsBefore,
    next: channels.map((channel) => `npm run admin -- key issue ${channel.name} --scopes read:catalog,read:ari`),
  };
}
