import type { z } from 'zod';
import { countEvents } from '../db/catalogue/channel-log.ts';
import { channelIdsByName } from '../db/catalogue/distribution.ts';
import { firstOrganizationCreatedAt } from '../db/catalogue/sources.ts';
import { AvailabilityBatch, type AvailabilityUpdate } from '../domain/availability/nights.ts';
import {
  DistributionInput,
  LocationInput,
  OrganizationInput,
  OwnerInput,
  PropertyInput,
} from '../domain/catalogue/source.ts';
import { ProblemError } from '../domain/problems.ts';
import {
  generateSandboxCatalogue,
  SANDBOX_REF_PREFIX,
  type SandboxWrite,
} from '../domain/sandbox/catalogue-generator.ts';
import { catalogueFigures } from '../domain/sandbox/figures.ts';
import { postAvailability } from './availability.ts';
import { putLocation, putOrganization, putOwner, putProperty } from './catalogue.ts';
import { createChannel } from './channels.ts';
import type { ServiceDeps } from './deps.ts';
import { DistributionRefused, putDistributions } from './distribution.ts';
import { Refusal } from './refusal.ts';

/**
 * A sandbox's generated catalogue written through the services behind the platform's PUTs (the
 * same validation, transactions, re-projection, events and durable processes as any platform
 * write), so channels read it as they would a real one. Never in production.
 */

export interface SandboxRequest {
  seed: number;
  properties: number;
  /** The whole distribution: each property goes to these channels (created when missing). */
  channels: readonly string[];
}

export const DEFAULT_SANDBOX_CHANNELS = ['sandbox-travel', 'sandbox-stays'] as const;
export const DEFAULT_SANDBOX_PROPERTIES = 1000;

/** Writes at once: the channels' log locks serialise the re-projections, the rest overlaps. */
const WRITERS = 4;
/** Availability updates per platform batch: a few dozen properties' years, one transaction. */
const NIGHTS_BATCH_UPDATES = 200;
/** Availability batches at once. */
const NIGHTS_WRITERS = 3;
/**
 * Properties distributed per transaction: each channel's log lock is taken once for them all, as
 * the daily roll takes it for `ROLL_BATCH` properties; a platform write waits for one batch at most.
 */
const DISTRIBUTION_BATCH = 50;
/** Distribution batches at once: the channels' log locks serialise them; the second one's reads overlap. */
const DISTRIBUTION_WRITERS = 2;

export class SandboxOnly extends Refusal {
  constructor() {
    super(
      'the sandbox catalogue is generated only in a sandbox deployment (SVC_ENVIRONMENT=sandbox), never in production',
    );
  }
}

function parsed<T>(schema: z.ZodType<T>, write: { operationId: string; ref: string; body: unknown }): T {
  const result = schema.safeParse(write.body);
  if (!result.success)
    throw new Error(`${write.operationId} ${write.ref}: ${result.error.issues.map((i) => i.message).join('; ')}`);
  return result.data;
}

/** Runs `work` over `items`, `width` at a time, in order of start. */
async function inPool<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

const seconds = (from: number, to: number) => Number(((to - from) / 1000).toFixed(2));

/** A refused generated write names itself: it is a bug of the generator, never the operator's. */
async function named<T>(write: SandboxWrite, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    throw refused(write, error);
  }
}

function refused(write: Pick<SandboxWrite, 'operationId' | 'ref'>, error: ProblemError): Error {
  return new Error(
    `${write.operationId} ${write.ref}: ${error.code} ${JSON.stringify(error.extras.errors ?? error.extras.detail ?? '')}`,
    { cause: error },
  );
}

/** `items` in runs of `size`, in order. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Whole properties' updates per batch, at most `size` updates each (a property's are never split). */
function batchesOf(updates: readonly AvailabilityUpdate[], size: number): AvailabilityUpdate[][] {
  const batches: AvailabilityUpdate[][] = [];
  let current: AvailabilityUpdate[] = [];
  for (let i = 0; i < updates.length;) {
    let end = i;
    while (end < updates.length && updates[end]!.property === updates[i]!.property) end += 1;
    if (current.length > 0 && current.length + (end - i) > size) {
      batches.push(current);
      current = [];
    }
    current.push(...updates.slice(i, end));
    i = end;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Generates the catalogue of `request` and writes it. Idempotent: dated from the first generated
 * organization's creation, so a second run with the same request writes the same records and
 * changes nothing (`changes.events` 0).
 */
export async function generateSandbox(deps: ServiceDeps, request: SandboxRequest) {
  if (deps.config.environment !== 'sandbox') throw new SandboxOnly();
  const started = performance.now();
  const em = deps.orm.em.fork();
  const known = await channelIdsByName(em, request.channels);
  const createdChannels = request.channels.filter((name) => !known.has(name));
  for (const name of createdChannels)
    await createChannel(deps, { name, rateLimitPerMinute: 600, redirectUrl: null, technicalContactEmail: null });

  const anchor = (await firstOrganizationCreatedAt(em, SANDBOX_REF_PREFIX)) ?? deps.clock.now();
  const catalogue = generateSandboxCatalogue({ ...request, anchor });
  const eventsBefore = await countEvents(deps.orm.em.fork());
  const of = (operationId: SandboxWrite['operationId']) =>
    catalogue.writes.filter((w) => w.operationId === operationId);
  let created = 0;
  const count = (write: { created: boolean }) => {
    if (write.created) created += 1;
  };

  await inPool(of('putOrganization'), WRITERS, (w) =>
    named(w, () => putOrganization(deps, w.ref, parsed(OrganizationInput, w)).then(count)),
  );
  await inPool(of('putOwner'), WRITERS, (w) =>
    named(w, () => putOwner(deps, w.ref, parsed(OwnerInput, w)).then(count)),
  );
  await inPool(of('putLocation'), WRITERS, (w) =>
    named(w, () => putLocation(deps, w.ref, parsed(LocationInput, w)).then(count)),
  );
  // Properties, then their nights, then their distribution: until it is distributed no channel
  // sees a property, so its writes take no channel's log lock and run side by side; the
  // distribution then shows each channel the property and its whole year at once.
  await inPool(of('putProperty'), WRITERS, (w) =>
    named(w, () => putProperty(deps, w.ref, parsed(PropertyInput, w)).then(count)),
  );
  const written = performance.now();
  let nightsChanged = 0;
  await inPool(batchesOf(catalogue.availability, NIGHTS_BATCH_UPDATES), NIGHTS_WRITERS, async (updates) => {
    const { results } = await postAvailability(deps, AvailabilityBatch.parse({ updates }));
    nightsChanged += results.reduce((sum, r) => sum + r.changed_nights, 0);
  });
  const priced = performance.now();
  // Many properties per transaction (`putDistributions`): one property at a time, every channel's
  // log lock would serialise a transaction per property.
  await inPool(chunks(of('putDistribution'), DISTRIBUTION_BATCH), DISTRIBUTION_WRITERS, async (writes) => {
    try {
      await putDistributions(
        deps,
        writes.map((w) => ({ ref: w.ref, input: parsed(DistributionInput, w) })),
      );
    } catch (error) {
      if (!(error instanceof DistributionRefused)) throw error;
      throw refused({ operationId: 'putDistribution', ref: error.ref }, error.problem);
    }
  });

  return {
    seed: request.seed,
    anchored_at: anchor.toISOString(),
    channels: { distributed_to: [...request.channels], created: createdChannels },
    ...catalogueFigures(catalogue),
    changes: {
      records_created: created,
      nights_changed: nightsChanged,
      events: (await countEvents(deps.orm.em.fork())) - eventsBefore,
    },
    seconds: {
      records: seconds(started, written),
      nights: seconds(written, priced),
      distribution: seconds(priced, performance.now()),
      total: seconds(started, performance.now()),
    },
  };
}
