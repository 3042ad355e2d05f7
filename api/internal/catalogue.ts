import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { reproject, type Affected } from '../../db/catalogue/projector.ts';
import { pgArray, writeTransaction } from '../../db/sql.ts';
import { ensureHorizonRollsForZones, notifyDispatcher } from '../../services/durable-processes.ts';
import { canonicalJson } from '../../domain/catalogue/projection.ts';
import { applyAvailabilityUpdates, syncPropertyAvailability } from '../../db/availability.ts';
import { AvailabilityBatch } from '../../domain/availability/nights.ts';
import { DistributionInput, LocationInput, OrganizationInput, OwnerInput, PropertyInput, Ref } from '../../domain/catalogue/source.ts';
import { sourceLanguage, textMapViolations } from '../../domain/catalogue/text.ts';
import { toInstant } from '../../domain/time.ts';
import type { AppDeps } from '../context.ts';
import { defineOperation, type Operation, type OperationResult } from '../operations.ts';
import { ProblemError, type ParameterError } from '../../domain/problems.ts';
import { jsonPointer } from '../../domain/json-pointer.ts';

/**
 * The platform write interface: the property-management platform creates, replaces and deletes
 * the source records and sets distribution. Every write is a PUT or DELETE addressed by the
 * platform's reference, so a repeated write is harmless; it is validated whole before anything
 * is written, and it re-projects every channel's view in the same transaction.
 */

type Table = 'organization' | 'owner' | 'location' | 'property';

interface StoredRow {
  id: string;
  ref: string;
  content: Record<string, unknown>;
  /** Raw queries return timestamps as text. */
  created_at: string;
  updated_at: string;
}

const RefParams = z.object({ ref: Ref }).strict();

function record(row: StoredRow): Record<string, unknown> {
  return { ref: row.ref, ...row.content, created_at: toInstant(new Date(row.created_at)), updated_at: toInstant(new Date(row.updated_at)) };
}

function invalid(errors: ParameterError[]): ProblemError {
  return new ProblemError('invalid_parameters', { errors });
}

function unknownReference(pointer: string, what: string, ref: string): ParameterError {
  return { detail: `no ${what} with reference "${ref}"`, code: 'unknown_reference', pointer };
}

async function idOfRef(tx: EntityManager, table: Table, ref: string): Promise<string | null> {
  const [row] = await tx.execute<{ id: string }[]>(`select id from ${table} where ref = ?`, [ref]);
  return row?.id ?? null;
}

/** The row under its reference, locked for the rest of the transaction. */
async function lockedRow(tx: EntityManager, table: Table, ref: string): Promise<StoredRow | null> {
  const content = table === 'organization' ? `jsonb_build_object('name', name, 'country', country)` : 'content';
  const [row] = await tx.execute<StoredRow[]>(`select id, ref, ${content} as content, created_at, updated_at from ${table} where ref = ? for update`, [ref]);
  return row ?? null;
}

function projectorDeps(deps: AppDeps) {
  return { clock: deps.clock, secret: deps.secrets.server };
}

/**
 * A write and the re-projection of every channel's view, in one transaction; after it commits,
 * the event dispatcher is woken so webhooks go out at once.
 */
async function write<T>(deps: AppDeps, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  const result = await writeTransaction(deps.orm.em, work);
  notifyDispatcher(deps);
  return result;
}

/**
 * Inserts or replaces one source record and re-projects what it affects. An identical write
 * returns the stored record and touches nothing.
 */
async function upsert(
  deps: AppDeps,
  table: Table,
  ref: string,
  content: Record<string, unknown>,
  columns: (tx: EntityManager, existing: StoredRow | null) => Promise<Record<string, unknown>>,
  affected: (id: string, tx: EntityManager) => Promise<Affected> | Affected,
): Promise<OperationResult> {
  return write(deps, async (tx) => {
    const existing = await lockedRow(tx, table, ref);
    const extra = await columns(tx, existing);
    const now = deps.clock.now();
    if (existing && canonicalJson(existing.content) === canonicalJson(content) && (await sameColumns(tx, table, existing.id, extra))) {
      return { status: 200, body: record(existing) };
    }
    const id = existing?.id ?? randomUUID();
    const values = table === 'organization' ? { ...extra } : { ...extra, content: JSON.stringify(content) };
    const names = Object.keys(values);
    if (existing) {
      await tx.execute(`update ${table} set ${names.map((n) => `${n} = ?`).join(', ')}, updated_at = ? where id = ?`, [...Object.values(values), now, id]);
    } else {
      await tx.execute(
        `insert into ${table} (id, ref, ${names.join(', ')}, created_at, updated_at) values (?, ?, ${names.map(() => '?').join(', ')}, ?, ?)`,
        [id, ref, ...Object.values(values), now, now],
      );
    }
    await reproject(tx, await affected(id, tx), projectorDeps(deps));
    const stored = (await lockedRow(tx, table, ref))!;
    return { status: existing ? 200 : 201, body: record(stored) };
  });
}

async function sameColumns(tx: EntityManager, table: Table, id: string, columns: Record<string, unknown>): Promise<boolean> {
  const names = Object.keys(columns);
  if (names.length === 0) return true;
  const [row] = await tx.execute<Record<string, unknown>[]>(`select ${names.join(', ')} from ${table} where id = ?`, [id]);
  return names.every((name) => row?.[name] === columns[name]);
}

async function remove(deps: AppDeps, table: Table, ref: string, inUse: (tx: EntityManager, id: string) => Promise<string | null>, affected: (id: string) => Affected): Promise<OperationResult> {
  return write(deps, async (tx) => {
    const existing = await lockedRow(tx, table, ref);
    if (!existing) throw new ProblemError('not_found');
    const reason = await inUse(tx, existing.id);
    if (reason) throw new ProblemError('resource_in_use', { detail: reason });
    await tx.execute(`delete from ${table} where id = ?`, [existing.id]);
    await reproject(tx, affected(existing.id), projectorDeps(deps));
    return { status: 204 };
  });
}

async function read(deps: AppDeps, table: Table, ref: string): Promise<OperationResult> {
  const content = table === 'organization' ? `jsonb_build_object('name', name, 'country', country)` : 'content';
  const [row] = await deps.orm.em.fork().execute<StoredRow[]>(`select id, ref, ${content} as content, created_at, updated_at from ${table} where ref = ?`, [ref]);
  if (!row) throw new ProblemError('not_found');
  return { body: record(row) };
}

async function countWhere(tx: EntityManager, sql: string, id: string): Promise<number> {
  const [row] = await tx.execute<{ n: string }[]>(sql, [id]);
  return Number(row?.n ?? 0);
}

/** Text maps of a property checked against the source language of its location's country. */
function propertyTextErrors(property: PropertyInput, country: string): ParameterError[] {
  const language = sourceLanguage(country);
  const maps: [PropertyKey[], unknown][] = [
    [['name'], property.name],
    [['description'], property.description],
    ...property.photos.flatMap((photo, i): [PropertyKey[], unknown][] => (photo.caption === null ? [] : [[['photos', i, 'caption'], photo.caption]])),
    ...property.rate_plans.map((plan, i): [PropertyKey[], unknown] => [['rate_plans', i, 'name'], plan.name]),
  ];
  return maps.flatMap(([path, map]) =>
    textMapViolations(map, language).map((violation) => ({
      detail: violation.rule === 'source_language_missing' ? `the text must include the source language \`${language}\`` : `text breaks the rule \`${violation.rule}\``,
      code: violation.rule === 'source_language_missing' ? 'source_language_missing' : `text_${violation.rule}`,
      pointer: jsonPointer(violation.language === undefined ? path : [...path, violation.language]),
    })),
  );
}

const tags = ['Platform'];
const problems = ['invalid_parameters', 'platform_token_invalid', 'not_found'] as const;
const ok = (description: string) => ({ 200: { description }, 201: { description: `${description} (created)` } });

export const putOrganization = defineOperation({
  operationId: 'putOrganization', method: 'put', path: '/organizations/{ref}', summary: 'Create or replace an organization', tags, scopes: null,
  params: RefParams, body: OrganizationInput, responses: ok('The organization'), problems: [...problems],
  handler: ({ params, body, deps }) =>
    upsert(deps, 'organization', params.ref, body, () => Promise.resolve({ name: body.name, country: body.country }), () => ({})),
});

export const putOwner = defineOperation({
  operationId: 'putOwner', method: 'put', path: '/owners/{ref}', summary: 'Create or replace an owner', tags, scopes: null,
  params: RefParams, body: OwnerInput, responses: ok('The owner'), problems: [...problems],
  handler: ({ params, body, deps }) =>
    upsert(deps, 'owner', params.ref, body, async (tx) => {
      const organization = await idOfRef(tx, 'organization', body.organization);
      if (!organization) throw invalid([unknownReference('/organization', 'organization', body.organization)]);
      return { organization_id: organization };
    }, async (id, tx) => {
      // An owner's type sets the default address visibility of its locations.
      const locations = await tx.execute<{ id: string }[]>('select id from location where owner_id = ?', [id]);
      return { owners: [id], locations: locations.map((l) => l.id) };
    }),
});

export const putLocation = defineOperation({
  operationId: 'putLocation', method: 'put', path: '/locations/{ref}', summary: 'Create or replace a location', tags, scopes: null,
  params: RefParams, body: LocationInput, responses: ok('The location'), problems: [...problems],
  handler: async ({ params, body, deps }) => {
    const result = await upsertLocation(deps, params.ref, body);
    // A zone that first appears gets its daily horizon roll (best effort; the worker also starts
    // the rolls of every zone in use when it starts).
    if (deps.config.horizonRollsFromApi) void ensureHorizonRollsForZones(deps, [body.timezone]);
    return result;
  },
});

function upsertLocation(deps: AppDeps, ref: string, body: LocationInput): Promise<OperationResult> {
  return upsert(deps, 'location', ref, body, async (tx, existing) => {
      const organization = await idOfRef(tx, 'organization', body.organization);
      const owner = await idOfRef(tx, 'owner', body.owner);
      const errors = [
        ...(organization ? [] : [unknownReference('/organization', 'organization', body.organization)]),
        ...(owner ? [] : [unknownReference('/owner', 'owner', body.owner)]),
      ];
      const previousCountry = (existing?.content as LocationInput | undefined)?.address.country;
      if (existing && previousCountry !== body.address.country && (await countWhere(tx, 'select count(*) as n from property where location_id = ?', existing.id)) > 0) {
        errors.push({ detail: 'the country of a location with properties cannot change: their texts and legal data follow it', code: 'immutable', pointer: '/address/country' });
      }
      if (errors.length > 0) throw invalid(errors);
      return { organization_id: organization, owner_id: owner };
    }, async (id, tx) => {
      // The nights of its properties follow the location's zone.
      await tx.execute('update ari_property set timezone = ? where property_id in (select id from property where location_id = ?)', [body.timezone, id]);
      return { locations: [id] };
    });
}

export const putProperty = defineOperation({
  operationId: 'putProperty', method: 'put', path: '/properties/{ref}', summary: 'Create or replace a property', tags, scopes: null,
  params: RefParams, body: PropertyInput, responses: ok('The property'), problems: [...problems],
  handler: ({ params, body, deps }) =>
    upsert(deps, 'property', params.ref, body, async (tx) => {
      const [location] = await tx.execute<{ id: string; content: LocationInput }[]>('select id, content from location where ref = ?', [body.location]);
      const owner = await idOfRef(tx, 'owner', body.owner);
      const errors = [
        ...(location ? propertyTextErrors(body, location.content.address.country) : [unknownReference('/location', 'location', body.location)]),
        ...(owner ? [] : [unknownReference('/owner', 'owner', body.owner)]),
      ];
      if (errors.length > 0) throw invalid(errors);
      return { location_id: location!.id, owner_id: owner };
    }, async (id, tx) => {
      const [location] = await tx.execute<{ content: LocationInput }[]>('select content from location where ref = ?', [body.location]);
      await syncPropertyAvailability(tx, { propertyId: id, content: body, timezone: location!.content.timezone }, deps.clock);
      return { properties: [id] };
    }),
});

export const deleteOrganization = defineOperation({
  operationId: 'deleteOrganization', method: 'delete', path: '/organizations/{ref}', summary: 'Delete an organization with nothing left in it', tags, scopes: null,
  params: RefParams, responses: { 204: { description: 'Deleted' } }, problems: [...problems, 'resource_in_use'],
  handler: ({ params, deps }) =>
    remove(deps, 'organization', params.ref, async (tx, id) =>
      (await countWhere(tx, 'select count(*) as n from owner where organization_id = ?', id)) + (await countWhere(tx, 'select count(*) as n from location where organization_id = ?', id)) > 0
        ? 'the organization still has owners or locations'
        : null, () => ({})),
});

export const deleteOwner = defineOperation({
  operationId: 'deleteOwner', method: 'delete', path: '/owners/{ref}', summary: 'Delete an owner no location or property names', tags, scopes: null,
  params: RefParams, responses: { 204: { description: 'Deleted' } }, problems: [...problems, 'resource_in_use'],
  handler: ({ params, deps }) =>
    remove(deps, 'owner', params.ref, async (tx, id) =>
      (await countWhere(tx, 'select count(*) as n from property where owner_id = ?', id)) + (await countWhere(tx, 'select count(*) as n from location where owner_id = ?', id)) > 0
        ? 'locations or properties still name this owner'
        : null, (id) => ({ owners: [id] })),
});

export const deleteLocation = defineOperation({
  operationId: 'deleteLocation', method: 'delete', path: '/locations/{ref}', summary: 'Delete a location no property names', tags, scopes: null,
  params: RefParams, responses: { 204: { description: 'Deleted' } }, problems: [...problems, 'resource_in_use'],
  handler: ({ params, deps }) =>
    remove(deps, 'location', params.ref, async (tx, id) =>
      (await countWhere(tx, 'select count(*) as n from property where location_id = ?', id)) > 0 ? 'properties still name this location' : null,
    (id) => ({ locations: [id] })),
});

export const deleteProperty = defineOperation({
  operationId: 'deleteProperty', method: 'delete', path: '/properties/{ref}', summary: 'Delete a property: final, a tombstone on every channel that saw it', tags, scopes: null,
  params: RefParams, responses: { 204: { description: 'Deleted' } }, problems: [...problems],
  handler: ({ params, deps }) => remove(deps, 'property', params.ref, () => Promise.resolve(null), (id) => ({ properties: [id] })),
});

export const getOrganization = defineOperation({
  operationId: 'getOrganization', method: 'get', path: '/organizations/{ref}', summary: 'An organization as stored', tags, scopes: null,
  params: RefParams, responses: { 200: { description: 'The organization' } }, problems: [...problems],
  handler: ({ params, deps }) => read(deps, 'organization', params.ref),
});
export const getOwner = defineOperation({
  operationId: 'getOwner', method: 'get', path: '/owners/{ref}', summary: 'An owner as stored', tags, scopes: null,
  params: RefParams, responses: { 200: { description: 'The owner' } }, problems: [...problems],
  handler: ({ params, deps }) => read(deps, 'owner', params.ref),
});
export const getLocation = defineOperation({
  operationId: 'getLocation', method: 'get', path: '/locations/{ref}', summary: 'A location as stored', tags, scopes: null,
  params: RefParams, responses: { 200: { description: 'The location' } }, problems: [...problems],
  handler: ({ params, deps }) => read(deps, 'location', params.ref),
});
export const getSourceProperty = defineOperation({
  operationId: 'getSourceProperty', method: 'get', path: '/properties/{ref}', summary: 'A property as stored', tags, scopes: null,
  params: RefParams, responses: { 200: { description: 'The property' } }, problems: [...problems],
  handler: ({ params, deps }) => read(deps, 'property', params.ref),
});

async function distributionOf(tx: EntityManager, propertyId: string): Promise<string[]> {
  const rows = await tx.execute<{ name: string }[]>('select c.name from distribution d join channel c on c.id = d.channel_id where d.property_id = ? order by c.name', [propertyId]);
  return rows.map((row) => row.name);
}

export const putDistribution = defineOperation({
  operationId: 'putDistribution', method: 'put', path: '/properties/{ref}/distribution', summary: "Set the channels a property is distributed to (the host's choice)", tags, scopes: null,
  params: RefParams, body: DistributionInput, responses: { 200: { description: 'The distribution' } }, problems: [...problems],
  handler: ({ params, body, deps }) =>
    write(deps, async (tx) => {
      const property = await lockedRow(tx, 'property', params.ref);
      if (!property) throw new ProblemError('not_found');
      const channels = await tx.execute<{ id: string; name: string }[]>('select id, name from channel where name = any(?::text[])', [pgArray(body.channels)]);
      const known = new Map(channels.map((c) => [c.name, c.id]));
      const errors = body.channels.flatMap((name, i) => (known.has(name) ? [] : [{ detail: `no channel named "${name}"`, code: 'unknown_reference', pointer: `/channels/${i}` }]));
      if (errors.length > 0) throw invalid(errors);
      const before = await distributionOf(tx, property.id);
      const wanted = [...body.channels].sort();
      if (canonicalJson(before) !== canonicalJson(wanted)) {
        await tx.execute('delete from distribution where property_id = ? and not (channel_id = any(?::uuid[]))', [property.id, pgArray([...known.values()])]);
        await tx.execute(
          `insert into distribution (property_id, channel_id, created_at) select ?, c, ? from unnest(?::uuid[]) as c on conflict do nothing`,
          [property.id, deps.clock.now(), pgArray([...known.values()])],
        );
        await reproject(tx, { properties: [property.id] }, projectorDeps(deps));
      }
      return { body: { property: params.ref, channels: wanted } };
    }),
});

export const getDistribution = defineOperation({
  operationId: 'getDistribution', method: 'get', path: '/properties/{ref}/distribution', summary: 'The channels a property is distributed to', tags, scopes: null,
  params: RefParams, responses: { 200: { description: 'The distribution' } }, problems: [...problems],
  handler: async ({ params, deps }) => {
    const em = deps.orm.em.fork();
    const id = await idOfRef(em, 'property', params.ref);
    if (!id) throw new ProblemError('not_found');
    return { body: { property: params.ref, channels: await distributionOf(em, id) } };
  },
});

export const postAvailability = defineOperation({
  operationId: 'postAvailability', method: 'post', path: '/availability', summary: 'Bulk availability and price updates',
  description: 'Up to 1,000 updates, each a property, a range of nights `[from, to)` and the fields to set on those nights (rates per rate plan key). Applied together in one transaction; nights outside a property\'s horizon are ignored. Each property\'s changed nights are announced to every channel that sees it as one `availability.updated` event per contiguous range.',
  tags, scopes: null, body: AvailabilityBatch, responses: { 200: { description: 'What changed, per property' } }, problems: ['invalid_parameters', 'platform_token_invalid'],
  handler: ({ body, deps }) =>
    write(deps, async (tx) => {
      const refs = [...new Set(body.updates.map((u) => u.property))].sort();
      const rows = await tx.execute<{ id: string; ref: string; content: PropertyInput; timezone: string }[]>(
        `select p.id, p.ref, p.content, l.content->>'timezone' as timezone from property p join location l on l.id = p.location_id
          where p.ref = any(?::text[]) order by p.id for update of p`,
        [pgArray(refs)],
      );
      const byRef = new Map(rows.map((row) => [row.ref, row]));
      const errors: ParameterError[] = body.updates.flatMap((update, i) => {
        const property = byRef.get(update.property);
        if (!property) return [unknownReference(`/updates/${i}/property`, 'property', update.property)];
        const keys = new Set(property.content.rate_plans.map((plan) => plan.key));
        return (update.rates ?? []).flatMap((rate, j) => (keys.has(rate.rate_plan) ? [] : [{ detail: `the property has no rate plan "${rate.rate_plan}"`, code: 'unknown_reference', pointer: `/updates/${i}/rates/${j}/rate_plan` }]));
      });
      if (errors.length > 0) throw invalid(errors);
      const results = [];
      for (const row of rows) {
        const updates = body.updates.filter((u) => u.property === row.ref);
        results.push(await applyAvailabilityUpdates(tx, { propertyId: row.id, ref: row.ref, content: row.content, timezone: row.timezone }, updates, deps.clock));
      }
      return { body: { results } };
    }),
});

export const INTERNAL_BASE = '/internal/v1';

export const internalOperations = [
  putOrganization, getOrganization, deleteOrganization,
  putOwner, getOwner, deleteOwner,
  putLocation, getLocation, deleteLocation,
  putProperty, getSourceProperty, deleteProperty,
  putDistribution, getDistribution,
  postAvailability,
] as Operation[];
