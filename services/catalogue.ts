import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { followLocationZone, syncPropertyAvailability } from '../db/availability.ts';
import { reproject, type Affected, type ProjectorDeps } from '../db/catalogue/projector.ts';
import {
  countMembersOfOrganization,
  countNamingOwner,
  countPropertiesAtLocation,
  deleteSource,
  findSource,
  hasColumns,
  idOfRef,
  insertSource,
  locationIdsOfOwner,
  locationOfRef,
  updateSource,
  type SourceColumns,
  type SourceKind,
  type StoredSource,
} from '../db/catalogue/sources.ts';
import { countIntegrationMembers } from '../db/integration.ts';
import { propertyIdsAtLocation } from '../db/catalogue/legal-status.ts';
import { hasEndDates } from '../domain/catalogue/legal.ts';
import { canonicalJson } from '../domain/catalogue/projection.ts';
import { propertyTextErrors } from '../domain/catalogue/source-rules.ts';
import type { LocationInput, OrganizationInput, OwnerInput, PropertyInput } from '../domain/catalogue/source.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import { armCertificateExpiries } from './certificate-expiry.ts';
import { locationReferences, ownerReferences, propertyReferences } from './catalogue-rules.ts';
import type { ServiceDeps } from './deps.ts';
import { ensureHorizonRollsForZones, writeAndNotify } from './durable-processes.ts';

/**
 * The platform's source records: each is created, replaced or deleted whole under the platform's
 * reference, so a repeated write is harmless. A write is validated before anything is written and
 * re-projects every channel's view in the same transaction; an identical write changes nothing.
 */

type Deps = Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock' | 'secrets'>;

export type { SourceKind, StoredSource };

/** A put's outcome: the record as stored, and whether it was new. */
export interface SourceWrite {
  created: boolean;
  source: StoredSource;
}

export function projectorDeps(deps: Pick<ServiceDeps, 'clock' | 'secrets'>): ProjectorDeps {
  return { clock: deps.clock, secret: deps.secrets.ring.geo };
}

export function invalidParameters(errors: ParameterError[]): ProblemError {
  return new ProblemError('invalid_parameters', { errors });
}

/**
 * Inserts or replaces one record and re-projects what it affects. `columns` resolves the records
 * the write names (refusing unknown ones); `affected` says what to re-project once it is written.
 */
function upsert(
  deps: Deps,
  kind: SourceKind,
  ref: string,
  content: Record<string, unknown>,
  columns: (tx: EntityManager, existing: StoredSource | null) => Promise<SourceColumns>,
  affected: (id: string, tx: EntityManager) => Promise<Affected> | Affected,
): Promise<SourceWrite> {
  return writeAndNotify(deps, async (tx) => {
    const existing = await findSource(tx, kind, ref, { lock: true });
    const extra = await columns(tx, existing);
    const now = deps.clock.now();
    if (
      existing &&
      canonicalJson(existing.content) === canonicalJson(content) &&
      (await hasColumns(tx, kind, existing.id, extra))
    ) {
      return { created: false, source: existing };
    }
    const id = existing?.id ?? randomUUID();
    if (existing) await updateSource(tx, kind, { id, columns: extra, content, now });
    else await insertSource(tx, kind, { id, ref, columns: extra, content, now });
    await reproject(tx, await affected(id, tx), projectorDeps(deps));
    return { created: !existing, source: (await findSource(tx, kind, ref, { lock: true }))! };
  });
}

/** Deletes one record unless `inUse` gives a reason, and re-projects what it affected. */
async function remove(
  deps: Deps,
  kind: SourceKind,
  ref: string,
  inUse: (tx: EntityManager, id: string) => Promise<string | null>,
  affected: (id: string) => Affected,
): Promise<void> {
  await writeAndNotify(deps, async (tx) => {
    const existing = await findSource(tx, kind, ref, { lock: true });
    if (!existing) throw new ProblemError('not_found');
    const reason = await inUse(tx, existing.id);
    if (reason) throw new ProblemError('resource_in_use', { detail: reason });
    await deleteSource(tx, kind, existing.id);
    await reproject(tx, affected(existing.id), projectorDeps(deps));
  });
}

/** A record as stored, for the platform to read back. */
export async function getSource(deps: Pick<ServiceDeps, 'orm'>, kind: SourceKind, ref: string): Promise<StoredSource> {
  const found = await findSource(deps.orm.em.fork(), kind, ref);
  if (!found) throw new ProblemError('not_found');
  return found;
}

export function putOrganization(deps: Deps, ref: string, input: OrganizationInput): Promise<SourceWrite> {
  return upsert(
    deps,
    'organization',
    ref,
    input,
    () => Promise.resolve({ name: input.name, country: input.country }),
    () => ({}),
  );
}

export function putOwner(deps: Deps, ref: string, input: OwnerInput): Promise<SourceWrite> {
  return upsert(
    deps,
    'owner',
    ref,
    input,
    async (tx, existing) => {
      const { organizationId, errors } = await ownerReferences(tx, existing?.id ?? null, input);
      if (errors.length > 0) throw invalidParameters(errors);
      return { organization_id: organizationId };
    },
    async (id, tx) => ({ owners: [id], locations: await locationIdsOfOwner(tx, id) }),
  );
}

/**
 * A location names its organization and owner; its country cannot change once it has properties
 * (their texts and legal data follow it), and its properties' nights follow its zone. A zone that
 * first appears gets its daily horizon roll, best effort, once the write committed (the worker
 * also starts the rolls of every zone in use when it starts).
 */
export async function putLocation(
  deps: Deps & Pick<ServiceDeps, 'config'>,
  ref: string,
  input: LocationInput,
): Promise<SourceWrite> {
  const written = await upsert(
    deps,
    'location',
    ref,
    input,
    async (tx, existing) => {
      const { organizationId, ownerId, errors } = await locationReferences(tx, existing, {
        ...input,
        country: input.address.country,
      });
      if (errors.length > 0) throw invalidParameters(errors);
      return { organization_id: organizationId, owner_id: ownerId };
    },
    async (id, tx) => {
      await followLocationZone(tx, id, input.timezone);
      return { locations: [id] };
    },
  );
  if (deps.config.horizonRollsFromApi) void ensureHorizonRollsForZones(deps, [input.timezone]);
  // Its properties' legal dates fall at the midnights of its zone, which may have moved.
  await armCertificateExpiries(deps, { tell: await propertyIdsAtLocation(deps.orm.em.fork(), written.source.id) });
  return written;
}

/**
 * A property names its location and owner; its texts must hold the source language of the
 * location's country. The text rules need no database, so they run first: a refused text opens no
 * transaction and waits for no lock (the refusal still names every failed rule, the references'
 * read without a lock). Once written, its certificate-expiry workflow is armed (answered after it).
 */
export async function putProperty(deps: Deps, ref: string, input: PropertyInput): Promise<SourceWrite> {
  const textErrors = propertyTextErrors(input, null);
  if (textErrors.length > 0)
    throw invalidParameters([...textErrors, ...(await propertyReferences(deps.orm.em.fork(), input)).errors]);
  const written = await upsert(
    deps,
    'property',
    ref,
    input,
    async (tx) => {
      const { location, owner, errors } = await propertyReferences(tx, input);
      if (errors.length > 0) throw invalidParameters(errors);
      return { location_id: location!.id, owner_id: owner };
    },
    async (id, tx) => {
      const location = await locationOfRef(tx, input.location);
      await syncPropertyAvailability(
        tx,
        { propertyId: id, content: input, timezone: location!.content.timezone },
        deps.clock,
      );
      return { properties: [id] };
    },
  );
  const property = { id: written.source.id, ref };
  await armCertificateExpiries(deps, hasEndDates(input.legal) ? { start: [property] } : { tell: [property.id] });
  return written;
}

export function deleteOrganization(deps: Deps, ref: string): Promise<void> {
  const inUse = async (tx: EntityManager, id: string) =>
    (await countMembersOfOrganization(tx, id)) + (await countIntegrationMembers(tx, id)) > 0;
  return remove(
    deps,
    'organization',
    ref,
    async (tx, id) =>
      (await inUse(tx, id)) ? 'the organization still has owners, locations, guests or installations' : null,
    () => ({}),
  );
}

export function deleteOwner(deps: Deps, ref: string): Promise<void> {
  return remove(
    deps,
    'owner',
    ref,
    async (tx, id) => ((await countNamingOwner(tx, id)) > 0 ? 'locations or properties still name this owner' : null),
    (id) => ({ owners: [id] }),
  );
}

export function deleteLocation(deps: Deps, ref: string): Promise<void> {
  return remove(
    deps,
    'location',
    ref,
    async (tx, id) => ((await countPropertiesAtLocation(tx, id)) > 0 ? 'properties still name this location' : null),
    (id) => ({ locations: [id] }),
  );
}

/** Final: every channel that saw the property gets a `deleted` tombstone. */
export async function deleteProperty(deps: Deps, ref: string): Promise<void> {
  const id = await idOfRef(deps.orm.em.fork(), 'property', ref);
  await remove(
    deps,
    'property',
    ref,
    () => Promise.resolve(null),
    (deleted) => ({ properties: [deleted] }),
  );
  // Its certificate-expiry workflow finds it gone and ends.
  if (id) await armCertificateExpiries(deps, { tell: [id] });
}
