import { findSource } from '../db/catalogue/sources.ts';
import { AvailabilityBatch } from '../domain/availability/nights.ts';
import { LocationInput, OrganizationInput, OwnerInput, PropertyInput } from '../domain/catalogue/source.ts';
import { generateSandboxCatalogue, SANDBOX_REF_PREFIX } from '../domain/sandbox/catalogue-generator.ts';
import { postAvailability } from './availability.ts';
import {
  deleteLocation,
  deleteOwner,
  deleteProperty,
  putLocation,
  putOrganization,
  putOwner,
  putProperty,
} from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { getDistribution, putDistribution } from './distribution.ts';

/**
 * A channel's own corner of the sandbox, which its triggers change (services/sandbox-trigger.ts):
 * an organization, an owner, a location and a property taken from the generated catalogue's
 * generator (a Spanish one: no certificate that expires by itself), under references derived from
 * the channel's id and distributed to that channel only, so a trigger never moves another
 * channel's view. Written through the platform's services, on the channel's first trigger.
 */

type Deps = ServiceDeps;
export interface TriggerChannel {
  id: string;
  name: string;
}

export type ViewPart = 'organization' | 'owner' | 'location' | 'property';

/** The generator's records the view is made of: the first location in Spain and its first room type. */
const TAKEN: Record<ViewPart, string> = {
  organization: `${SANDBOX_REF_PREFIX}org-es-0`,
  owner: `${SANDBOX_REF_PREFIX}own-es-0`,
  location: `${SANDBOX_REF_PREFIX}loc-2`,
  property: `${SANDBOX_REF_PREFIX}prp-2-0`,
};
/** Enough generated properties to reach TAKEN's location, the third. */
const GENERATED = 24;
const SEED = 40;

/** Every reference of a channel's trigger records starts with this. */
export function triggerRefPrefix(channelId: string): string {
  return `${SANDBOX_REF_PREFIX}trigger-${channelId.slice(0, 8)}-`;
}

export function viewRef(channelId: string, part: ViewPart): string {
  return `${triggerRefPrefix(channelId)}${TAKEN[part].slice(SANDBOX_REF_PREFIX.length)}`;
}

/** The records made only to be deleted: an owner, a location of it, a property there. */
export function doomedRef(channelId: string, part: Exclude<ViewPart, 'organization'>): string {
  return `${triggerRefPrefix(channelId)}${part}-doomed`;
}

/** The generator's bodies for the channel, their references moved under its prefix. */
function viewBodies(channel: TriggerChannel, anchor: Date) {
  const catalogue = generateSandboxCatalogue({ seed: SEED, properties: GENERATED, channels: [channel.name], anchor });
  const moved = <T>(value: T): T =>
    JSON.parse(JSON.stringify(value).replaceAll(`"${SANDBOX_REF_PREFIX}`, `"${triggerRefPrefix(channel.id)}`)) as T;
  const body = (ref: string) => {
    const write = catalogue.writes.find((w) => w.ref === ref);
    if (!write) throw new Error(`the sandbox generator no longer writes ${ref}`);
    return moved(write.body);
  };
  return {
    organization: OrganizationInput.parse(body(TAKEN.organization)),
    owner: OwnerInput.parse(body(TAKEN.owner)),
    location: LocationInput.parse(body(TAKEN.location)),
    property: PropertyInput.parse({ ...(body(TAKEN.property) as object), status: 'active' }),
    nights: moved(catalogue.availability.filter((update) => update.property === TAKEN.property)),
  };
}

/**
 * Writes what of the channel's view is missing: a record already there is left as the channel's
 * triggers made it (a withdrawn property stays withdrawn). A new property is priced for the year
 * and distributed to the channel.
 */
export async function ensureView(deps: Deps, channel: TriggerChannel): Promise<void> {
  const em = deps.orm.em.fork();
  const missing = async (part: ViewPart) => (await findSource(em, part, viewRef(channel.id, part))) === null;
  if (!(await missing('property'))) return;
  const bodies = viewBodies(channel, deps.clock.now());
  if (await missing('organization'))
    await putOrganization(deps, viewRef(channel.id, 'organization'), bodies.organization);
  if (await missing('owner')) await putOwner(deps, viewRef(channel.id, 'owner'), bodies.owner);
  if (await missing('location')) await putLocation(deps, viewRef(channel.id, 'location'), bodies.location);
  const property = viewRef(channel.id, 'property');
  await putProperty(deps, property, bodies.property);
  if (bodies.nights.length > 0) await postAvailability(deps, AvailabilityBatch.parse({ updates: bodies.nights }));
  await putDistribution(deps, property, { channels: [channel.name] });
}

/** Whether the channel is shown the view's property now (its distribution names the channel). */
export async function viewDistributed(deps: Deps, channel: TriggerChannel): Promise<boolean> {
  return (await getDistribution(deps, viewRef(channel.id, 'property'))).channels.includes(channel.name);
}

export async function distributeView(deps: Deps, channel: TriggerChannel, shown: boolean): Promise<void> {
  await putDistribution(deps, viewRef(channel.id, 'property'), { channels: shown ? [channel.name] : [] });
}

/** The internal ids of the view's owner, location and property. */
export async function viewIds(deps: Deps, channel: TriggerChannel): Promise<string[]> {
  const em = deps.orm.em.fork();
  const ids: string[] = [];
  for (const part of ['owner', 'location', 'property'] as const) {
    const found = await findSource(em, part, viewRef(channel.id, part));
    if (found) ids.push(found.id);
  }
  return ids;
}

/** The view's record as stored, for a trigger to change one field of it. */
export async function viewContent(
  deps: Deps,
  channel: TriggerChannel,
  part: ViewPart,
): Promise<Record<string, unknown>> {
  const found = await findSource(deps.orm.em.fork(), part, viewRef(channel.id, part));
  if (!found) throw new Error(`the sandbox trigger view lost its ${part}`);
  return found.content;
}

/**
 * Shows the channel a record to delete and deletes it, up to `part`: a property (at a location of
 * the view's owner), or also its location, or also the location's owner. Each is deleted only once
 * nothing names it, so a location's or owner's deletion comes after its property's. Answers the
 * internal ids of what it wrote, for the events it produced.
 */
export async function createAndDelete(
  deps: Deps,
  channel: TriggerChannel,
  part: Exclude<ViewPart, 'organization'>,
): Promise<string[]> {
  const ids: string[] = [];
  const owner = part === 'owner' ? doomedRef(channel.id, 'owner') : viewRef(channel.id, 'owner');
  const location = part === 'property' ? viewRef(channel.id, 'location') : doomedRef(channel.id, 'location');
  const property = doomedRef(channel.id, 'property');
  if (part === 'owner')
    ids.push((await putOwner(deps, owner, OwnerInput.parse(await viewContent(deps, channel, 'owner')))).source.id);
  if (part !== 'property') {
    const body = LocationInput.parse({ ...(await viewContent(deps, channel, 'location')), owner });
    ids.push((await putLocation(deps, location, body)).source.id);
  }
  const body = PropertyInput.parse({ ...(await viewContent(deps, channel, 'property')), location, owner });
  ids.push((await putProperty(deps, property, body)).source.id);
  await putDistribution(deps, property, { channels: [channel.name] });
  await deleteProperty(deps, property);
  if (part !== 'property') await deleteLocation(deps, location);
  if (part === 'owner') await deleteOwner(deps, owner);
  return ids;
}
