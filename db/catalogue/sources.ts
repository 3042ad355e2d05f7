import type { EntityManager } from '@mikro-orm/postgresql';
import type { LocationInput } from '../../domain/catalogue/source.ts';
import { LocationSchema, OrganizationSchema, OwnerSchema, PropertySchema } from '../entities/index.ts';

/**
 * The source records the platform writes (organizations, owners, locations, properties), each
 * under the platform's reference. An organization's fields are columns; the others keep their
 * validated write body as `content`, beside the ids of the records it names.
 */
export type SourceKind = 'organization' | 'owner' | 'location' | 'property';

/** A source record as stored: its content as the platform wrote it, and when it was created and last changed. */
export interface StoredSource {
  id: string;
  ref: string;
  content: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** A source record as raw queries return it (timestamps as text). */
interface SourceRow {
  id: string;
  ref: string;
  content: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/**
 * The columns a write sets besides `content`: an organization's name and country, or the ids of
 * the records an owner, location or property names.
 */
export type SourceColumns = Record<string, string | null>;

const CONTENT: Record<SourceKind, string> = {
  organization: `jsonb_build_object('name', name, 'country', country)`,
  owner: 'content',
  location: 'content',
  property: 'content',
};

/** The record under its reference; with `lock`, locked for the rest of the transaction. */
export async function findSource(
  em: EntityManager,
  kind: SourceKind,
  ref: string,
  options: { lock?: boolean } = {},
): Promise<StoredSource | null> {
  const [row] = await em.execute<SourceRow[]>(
    `select id, ref, ${CONTENT[kind]} as content, created_at, updated_at from ${kind} where ref = ?${options.lock ? ' for update' : ''}`,
    [ref],
  );
  if (!row) return null;
  return {
    id: row.id,
    ref: row.ref,
    content: row.content,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export async function idOfRef(em: EntityManager, kind: SourceKind, ref: string): Promise<string | null> {
  const [row] = await em.execute<{ id: string }[]>(`select id from ${kind} where ref = ?`, [ref]);
  return row?.id ?? null;
}

/** Whether the stored record already has these column values. */
export async function hasColumns(
  em: EntityManager,
  kind: SourceKind,
  id: string,
  columns: SourceColumns,
): Promise<boolean> {
  const names = Object.keys(columns);
  if (names.length === 0) return true;
  const [row] = await em.execute<Record<string, unknown>[]>(`select ${names.join(', ')} from ${kind} where id = ?`, [
    id,
  ]);
  return names.every((name) => row?.[name] === columns[name]);
}

function values(kind: SourceKind, columns: SourceColumns, content: Record<string, unknown>): Record<string, unknown> {
  return kind === 'organization' ? { ...columns } : { ...columns, content: JSON.stringify(content) };
}

export async function insertSource(
  tx: EntityManager,
  kind: SourceKind,
  row: { id: string; ref: string; columns: SourceColumns; content: Record<string, unknown>; now: Date },
): Promise<void> {
  const set = values(kind, row.columns, row.content);
  const names = Object.keys(set);
  await tx.execute(
    `insert into ${kind} (id, ref, ${names.join(', ')}, created_at, updated_at) values (?, ?, ${names.map(() => '?').join(', ')}, ?, ?)`,
    [row.id, row.ref, ...Object.values(set), row.now, row.now],
  );
}

export async function updateSource(
  tx: EntityManager,
  kind: SourceKind,
  row: { id: string; columns: SourceColumns; content: Record<string, unknown>; now: Date },
): Promise<void> {
  const set = values(kind, row.columns, row.content);
  await tx.execute(
    `update ${kind} set ${Object.keys(set)
      .map((n) => `${n} = ?`)
      .join(', ')}, updated_at = ? where id = ?`,
    [...Object.values(set), row.now, row.id],
  );
}

export async function deleteSource(tx: EntityManager, kind: SourceKind, id: string): Promise<void> {
  await tx.execute(`delete from ${kind} where id = ?`, [id]);
}

/** A location by its reference, with the content its properties' texts and nights follow. */
export async function locationOfRef(
  em: EntityManager,
  ref: string,
): Promise<{ id: string; content: LocationInput } | null> {
  const [row] = await em.execute<{ id: string; content: LocationInput }[]>(
    'select id, content from location where ref = ?',
    [ref],
  );
  return row ?? null;
}

/** Ids of the locations of an owner, whose address visibility defaults by the owner's type. */
export async function locationIdsOfOwner(em: EntityManager, ownerId: string): Promise<string[]> {
  return (await em.find(LocationSchema, { owner: ownerId }, { fields: ['id'] })).map((location) => location.id);
}

export function countPropertiesAtLocation(em: EntityManager, locationId: string): Promise<number> {
  return em.count(PropertySchema, { location: locationId });
}

/** Owners and locations in an organization: it can be deleted only when there are none. */
export async function countMembersOfOrganization(em: EntityManager, organizationId: string): Promise<number> {
  return (
    (await em.count(OwnerSchema, { organization: organizationId })) +
    (await em.count(LocationSchema, { organization: organizationId }))
  );
}

/** Properties and locations that name an owner: it can be deleted only when there are none. */
export async function countNamingOwner(em: EntityManager, ownerId: string): Promise<number> {
  return (await em.count(PropertySchema, { owner: ownerId })) + (await em.count(LocationSchema, { owner: ownerId }));
}

/** When the first organization whose reference starts with `prefix` was written (the demo's anchor date). */
export async function firstOrganizationCreatedAt(em: EntityManager, prefix: string): Promise<Date | null> {
  const first = await em.findOne(
    OrganizationSchema,
    { ref: { $like: `${prefix}%` } },
    { orderBy: { createdAt: 'asc' }, fields: ['createdAt'] },
  );
  return first?.createdAt ?? null;
}
