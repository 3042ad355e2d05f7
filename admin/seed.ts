import type { z } from 'zod';
import { countEvents } from '../db/catalogue/channel-log.ts';
import { channelIdsByName } from '../db/catalogue/distribution.ts';
import { firstOrganizationCreatedAt } from '../db/catalogue/sources.ts';
import { AvailabilityBatch } from '../domain/availability/nights.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
  Ref,
} from '../domain/catalogue/source.ts';
import { jsonPointer } from '../domain/json-pointer.ts';
import { ProblemError } from '../domain/problems.ts';
import { localDate } from '../domain/time.ts';
import { postAvailability } from '../services/availability.ts';
import { putLocation, putOrganization, putOwner, putProperty } from '../services/catalogue.ts';
import { putDistribution } from '../services/distribution.ts';
import { createChannel } from './channels.ts';
import type { AdminContext } from './context.ts';
import { demoAvailability } from './demo-availability.ts';
import { seedDemoIntegration } from './demo-guests.ts';
import { seedDemoListings } from './demo-listings.ts';
import { DEMO_CHANNELS, demoCatalogue, type DemoWrite } from './demo-catalogue.ts';
import { AdminError } from './errors.ts';

/** The demo's certificates are dated from the day it was first loaded, so a later run changes nothing. */
const ANCHOR_ZONE = 'Europe/Bucharest';

/** Parsed by the schema the platform interface validates the same input with; a refusal is `invalid_parameters`. */
function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new ProblemError('invalid_parameters', {
      errors: parsed.error.issues.map((issue) => ({
        detail: issue.message,
        code: issue.code,
        pointer: jsonPointer(issue.path),
      })),
    });
  }
  return parsed.data;
}

interface Written {
  organizations: string[];
  owners: string[];
  locations: string[];
  properties: string[];
  distribution: Record<string, string[]>;
}

/** One demo write through the service the platform's write of it goes through. */
async function apply(ctx: AdminContext, write: DemoWrite, written: Written): Promise<void> {
  const ref = parse(Ref, write.ref);
  switch (write.operationId) {
    case 'putOrganization':
      await putOrganization(ctx, ref, parse(OrganizationInput, write.body));
      written.organizations.push(ref);
      return;
    case 'putOwner':
      await putOwner(ctx, ref, parse(OwnerInput, write.body));
      written.owners.push(ref);
      return;
    case 'putLocation':
      await putLocation(ctx, ref, parse(LocationInput, write.body));
      written.locations.push(ref);
      return;
    case 'putProperty':
      await putProperty(ctx, ref, parse(PropertyInput, write.body));
      written.properties.push(ref);
      return;
    case 'putDistribution': {
      const input = parse(DistributionInput, write.body);
      await putDistribution(ctx, ref, input);
      written.distribution[ref] = input.channels;
      return;
    }
  }
}

/**
 * `seed demo`: the demo catalogue written through the services behind the platform write
 * interface (same validation, same transactions and re-projection), distributed to two demo
 * channels created when missing. Every write is an idempotent PUT, so a second run writes nothing.
 */
export async function seedDemo(ctx: AdminContext) {
  const channels = [];
  for (const name of [DEMO_CHANNELS.first, DEMO_CHANNELS.second]) {
    const exists = (await channelIdsByName(ctx.orm.em.fork(), [name])).has(name);
    if (!exists)
      await createChannel(ctx, { name, rateLimit: 600, redirectUrl: `https://${name}.example/owner-connect` });
    channels.push({ name, created: !exists });
  }

  const anchor = await firstOrganizationCreatedAt(ctx.orm.em.fork(), 'demo-');
  const today = localDate(anchor ?? ctx.clock.now(), ANCHOR_ZONE);
  const writes = demoCatalogue(DEMO_CHANNELS, today);

  const eventsBefore = await countEvents(ctx.orm.em.fork());
  const written: Written = { organizations: [], owners: [], locations: [], properties: [], distribution: {} };
  for (const write of writes) {
    try {
      await apply(ctx, write, written);
    } catch (error) {
      if (error instanceof ProblemError)
        throw new AdminError(
          `${write.operationId} ${write.ref}: ${error.code} ${JSON.stringify(error.extras.errors ?? error.extras.detail ?? '')}`,
        );
      throw error;
    }
  }
  // A year of nights and prices, in batches the platform interface takes.
  const availability = demoAvailability(writes, ctx.clock.now());
  let nightsChanged = 0;
  for (let i = 0; i < availability.length; i += 1000) {
    const { results } = await postAvailability(
      ctx,
      parse(AvailabilityBatch, { updates: availability.slice(i, i + 1000) }),
    );
    nightsChanged += results.reduce((sum, r) => sum + r.changed_nights, 0);
  }
  const { distribution, ...records } = written;
  const integration = await seedDemoIntegration(ctx);
  // What the channels reported back: listing states with a history and 30 days of statistics.
  const listings = await seedDemoListings(ctx, DEMO_CHANNELS);
  return {
    channels,
    availability: { updates: availability.length, nights_changed: nightsChanged },
    ...records,
    distribution,
    channel_changes: (await countEvents(ctx.orm.em.fork())) - eventsBefore,
    integration,
    listings,
    next: channels.map((channel) => `npm run admin -- key issue ${channel.name} --scopes read:catalog,read:ari`),
  };
}
