import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../domain/clock.ts';
import { eventType, type ViewKind } from '../../domain/catalogue/event-type.ts';
import { newExternalId, type IdKind } from '../../domain/catalogue/ids.ts';
import {
  canonicalJson,
  projectLocation,
  projectOwner,
  projectProperty,
  publishedPlace,
  type ProjectedBody,
  type PublishedPlace,
} from '../../domain/catalogue/projection.ts';
import type { ResourceStatus } from '../../domain/catalogue/status.ts';
import { localDate, toInstant, wholeSeconds } from '../../domain/time.ts';
import { announceNowVisible } from '../availability.ts';
import { pgArray } from '../sql.ts';
import { withChannelLog, type LockedChannelLog } from './channel-log.ts';
import { viewDerivedStatus } from './derived-status.ts';
import {
  type PropertyRow,
  type LocationRow,
  type OwnerRow,
  type ViewRow,
  type Source,
  ID_KIND,
} from './projector-source.ts';

export type { ViewKind };

/** Internal ids whose source changed (or was deleted) in the current transaction. */
export interface Affected {
  properties?: readonly string[];
  locations?: readonly string[];
  owners?: readonly string[];
  /** Only this channel's view (a change of one channel's own data, such as an owner's connection). */
  channelId?: string;
}

export interface ProjectorDeps {
  clock: Clock;
  /** Keys the approximate points (domain/catalogue/geo.ts). */
  secret: Uint8Array;
}

/**
 * Brings every channel's view of the affected records in line with the source, inside the
 * caller's transaction. For each channel touched it takes the channel's log row lock first (in
 * channel id order, so two writers never wait on each other crosswise), then stamps and numbers
 * its changes: a body that differs from what the channel was shown gets the next position as its
 * version, the lock's stamp as `updated_at`, and its event in the same transaction; an identical
 * body changes nothing.
 */
export async function reproject(tx: EntityManager, affected: Affected, deps: ProjectorDeps): Promise<number> {
  const locationIds = new Set(affected.locations ?? []);
  const ownerIds = new Set(affected.owners ?? []);
  const propertyIds = new Set(affected.properties ?? []);

  // Lock the live properties concerned, in id order: writers of one property serialise here, so
  // no projection is computed from a state another writer is about to change.
  const lockedProperties = await tx.execute<{ id: string }[]>(
    `select id from property where id = any(?::uuid[]) or location_id = any(?::uuid[]) or owner_id = any(?::uuid[]) order by id for update`,
    [pgArray([...propertyIds]), pgArray([...locationIds]), pgArray([...ownerIds])],
  );
  for (const { id } of lockedProperties) propertyIds.add(id);
  // Each by an index: a property's views by the property, a location's or owner's by the channel's key.
  const channels = await tx.execute<{ channel_id: string; name: string }[]>(
    `select c.id as channel_id, c.name from channel c
      where c.id in (select channel_id from distribution where property_id = any(?::uuid[]))
         or c.id in (select channel_id from channel_resource where kind = 'property' and internal_id = any(?::uuid[]))
         or exists (select 1 from channel_resource r where r.channel_id = c.id and r.kind in ('location', 'owner')
                       and r.internal_id = any(?::uuid[]))
      order by c.id`,
    [pgArray([...propertyIds]), pgArray([...propertyIds]), pgArray([...locationIds, ...ownerIds])],
  );
  const concerned =
    affected.channelId === undefined
      ? channels
      : channels.filter((channel) => channel.channel_id === affected.channelId);
  if (concerned.length === 0) return 0;
  const now = wholeSeconds(deps.clock.now());
  let written = 0;
  for (const channel of concerned) {
    // The lock comes before any read of the view or the source, so what follows sees every
    // earlier writer of this channel committed.
    written += await withChannelLog(tx, channel.channel_id, now, (log) =>
      new ChannelWriter(tx, log, channel.name, deps).run(propertyIds, locationIds, ownerIds),
    );
  }
  return written;
}

class ChannelWriter {
  private readonly tx: EntityManager;
  private readonly log: LockedChannelLog;
  private readonly channelId: string;
  private readonly channelName: string;
  private readonly deps: ProjectorDeps;
  /** Records whose body changed: each got a new version and its event. */
  private written = 0;

  constructor(tx: EntityManager, log: LockedChannelLog, channelName: string, deps: ProjectorDeps) {
    this.tx = tx;
    this.log = log;
    this.channelId = log.channelId;
    this.channelName = channelName;
    this.deps = deps;
  }

  /** Answers the records it wrote. */
  async run(propertyIds: Set<string>, locationIds: Set<string>, ownerIds: Set<string>): Promise<number> {
    // Locations and owners the channel's rows named before this change may lose a property.
    for (const view of (await this.views([...propertyIds])).values()) {
      if (view.location_id) locationIds.add(view.location_id);
      if (view.owner_id) ownerIds.add(view.owner_id);
    }
    // The source adds the locations and owners the properties name now.
    const source = await this.source([...propertyIds], locationIds, ownerIds);
    const views = await this.views([...propertyIds, ...locationIds, ...ownerIds]);
    const distributed = new Set(
      (
        await this.tx.execute<{ property_id: string }[]>(
          'select property_id from distribution where channel_id = ? and property_id = any(?::uuid[])',
          [this.channelId, pgArray([...propertyIds])],
        )
      ).map((row) => row.property_id),
    );

    for (const id of [...propertyIds].sort())
      await this.property(id, source, views.get(`property:${id}`), distributed.has(id));
    for (const id of [...locationIds].sort()) await this.aggregate('location', id, source, views.get(`location:${id}`));
    for (const id of [...ownerIds].sort()) await this.aggregate('owner', id, source, views.get(`owner:${id}`));
    return this.written;
  }

  private async views(ids: string[]): Promise<Map<string, ViewRow>> {
    const rows = await this.tx.execute<ViewRow[]>(
      `select kind, internal_id, external_id, status, body, location_id, owner_id
         from channel_resource where channel_id = ? and kind in ('property', 'location', 'owner') and internal_id = any(?::uuid[])`,
      [this.channelId, pgArray(ids)],
    );
    return new Map(rows.map((row) => [`${row.kind}:${row.internal_id}`, row]));
  }

  private async source(propertyIds: string[], locationIds: Set<string>, ownerIds: Set<string>): Promise<Source> {
    const properties = await this.tx.execute<PropertyRow[]>(
      'select id, location_id, owner_id, content from property where id = any(?::uuid[])',
      [pgArray(propertyIds)],
    );
    for (const row of properties) {
      locationIds.add(row.location_id);
      ownerIds.add(row.owner_id);
    }
    const locations = await this.tx.execute<LocationRow[]>(
      'select id, owner_id, content from location where id = any(?::uuid[])',
      [pgArray([...locationIds])],
    );
    const owners = await this.tx.execute<OwnerRow[]>(
      'select id, content from owner where id = any(?::uuid[] || array(select owner_id from location where id = any(?::uuid[])))',
      [pgArray([...ownerIds]), pgArray([...locationIds])],
    );
    const ownerMap = new Map(owners.map((row) => [row.id, row]));
    const places = new Map<string, PublishedPlace>();
    for (const location of locations) {
      const ownerType = ownerMap.get(location.owner_id)?.content.type ?? 'individual';
      places.set(location.id, await publishedPlace(location.content, ownerType, this.deps.secret, location.id));
    }
    const connections = await this.tx.execute<{ owner_id: string; connected_at: Date }[]>(
      'select owner_id, connected_at from owner_connection where channel_id = ? and owner_id = any(?::uuid[])',
      [this.channelId, pgArray(owners.map((row) => row.id))],
    );
    return {
      connections: new Map(connections.map((row) => [row.owner_id, toInstant(new Date(row.connected_at))])),
      properties: new Map(properties.map((row) => [row.id, row])),
      locations: new Map(locations.map((row) => [row.id, row])),
      owners: ownerMap,
      places,
    };
  }

  private async property(id: string, source: Source, view: ViewRow | undefined, distributed: boolean): Promise<void> {
    const property = source.properties.get(id);
    if (!property) {
      if (view)
        await this.write(
          'property',
          id,
          view,
          { id: view.external_id, status: 'deleted' },
          view.location_id,
          view.owner_id,
        );
      return;
    }
    const location = source.locations.get(property.location_id)!;
    let body: ProjectedBody | null = null;
    if (distributed) {
      const photoIds = await this.externalIds(
        'photo',
        property.content.photos.map((photo) => childKey(id, photo.key)),
      );
      const planIds = await this.externalIds(
        'rate_plan',
        property.content.rate_plans.map((plan) => childKey(id, plan.key)),
      );
      const ids = {
        property: await this.externalId('property', id),
        location: await this.externalId('location', property.location_id),
        owner: await this.externalId('owner', property.owner_id),
        photos: new Map(property.content.photos.map((photo) => [photo.key, photoIds.get(childKey(id, photo.key))!])),
        ratePlans: new Map(property.content.rate_plans.map((plan) => [plan.key, planIds.get(childKey(id, plan.key))!])),
      };
      const projection = projectProperty(property.content, {
        channel: this.channelName,
        ids,
        country: location.content.address.country,
        timezone: location.content.timezone,
        today: localDate(this.deps.clock.now(), location.content.timezone),
      });
      if (projection.publishable) body = projection.body;
    }
    if (body === null) {
      // Not distributed, or not publishable (legal rules): a tombstone where the channel saw it.
      if (view && view.status !== 'deleted')
        await this.write(
          'property',
          id,
          view,
          { id: view.external_id, status: 'withdrawn' },
          view.location_id,
          view.owner_id,
        );
      return;
    }
    await this.write('property', id, view, body, property.location_id, property.owner_id);
  }

  /** A location or owner: shown while a property the channel sees names it, with the strongest status among them. */
  private async aggregate(
    kind: 'location' | 'owner',
    id: string,
    source: Source,
    view: ViewRow | undefined,
  ): Promise<void> {
    const status = await viewDerivedStatus(this.tx, this.channelId, kind, id);
    const record = kind === 'location' ? source.locations.get(id) : source.owners.get(id);
    if (view?.status === 'deleted') return;
    if (!record) {
      if (view) await this.write(kind, id, view, { id: view.external_id, status: 'deleted' }, null, null);
      return;
    }
    if (status === null || status === 'withdrawn' || status === 'deleted') {
      if (view && view.status !== 'withdrawn')
        await this.write(kind, id, view, { id: view.external_id, status: 'withdrawn' }, null, null);
      return;
    }
    const externalId = view?.external_id ?? (await this.externalId(kind, id));
    const body =
      kind === 'location'
        ? projectLocation((record as LocationRow).content, source.places.get(id)!, externalId, status)
        : projectOwner((record as OwnerRow).content, externalId, status, source.connections.get(id) ?? null);
    await this.write(kind, id, view, body, null, null);
  }

  /** Stores the body when it differs from the channel's, with a new version and its event. */
  private async write(
    kind: ViewKind,
    internalId: string,
    view: ViewRow | undefined,
    body: ProjectedBody,
    locationId: string | null,
    ownerId: string | null,
  ): Promise<void> {
    const visibleChange = !view || view.status !== body.status || canonicalJson(view.body) !== canonicalJson(body);
    if (!visibleChange) {
      if (view.location_id === locationId && view.owner_id === ownerId) return;
      // Only the remembered location or owner moved (never without a body change in practice).
      await this.tx.execute(
        'update channel_resource set location_id = ?, owner_id = ? where channel_id = ? and kind = ? and internal_id = ?',
        [locationId, ownerId, this.channelId, kind, internalId],
      );
      return;
    }
    this.written += 1;
    // The event's position is the record's new version.
    const version = await this.log.append(
      eventType(kind, view?.body ?? null, body),
      (position) => ({ object: kind, id: body.id, version: position }),
      this.deps.clock,
    );
    await this.tx.execute(
      `insert into channel_resource (channel_id, kind, internal_id, external_id, status, version, updated_at, body, location_id, owner_id)
       values (?, ?, ?, ?, ?, ?, ?, ?::json, ?, ?)
       on conflict (channel_id, kind, internal_id) do update set status = excluded.status, version = excluded.version,
         updated_at = excluded.updated_at, body = excluded.body, location_id = excluded.location_id, owner_id = excluded.owner_id`,
      [
        this.channelId,
        kind,
        internalId,
        body.id,
        body.status,
        version,
        this.log.stamp,
        JSON.stringify(body),
        locationId,
        ownerId,
      ],
    );
    // The channel sees the property's availability from now on: announced after the property itself.
    if (kind === 'property' && !visible(view?.status ?? null) && visible(body.status))
      await announceNowVisible(this.tx, this.log, internalId, body.id, this.deps.clock);
  }

  private async externalId(kind: ViewKind, internalId: string): Promise<string> {
    return (await this.externalIds(ID_KIND[kind], [internalId])).get(internalId)!;
  }

  /** The channel's ids for these internal keys, minting the missing ones once. */
  private async externalIds(kind: IdKind, keys: readonly string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const minted = keys.map(() => newExternalId(kind, this.deps.clock.now().getTime()));
    await this.tx.execute(
      `insert into channel_id (channel_id, kind, internal_key, external_id)
       select ?, ?, k, e from unnest(?::text[], ?::text[]) as t(k, e)
       on conflict (channel_id, kind, internal_key) do nothing`,
      [this.channelId, kind, pgArray(keys), pgArray(minted)],
    );
    const rows = await this.tx.execute<{ internal_key: string; external_id: string }[]>(
      'select internal_key, external_id from channel_id where channel_id = ? and kind = ? and internal_key = any(?::text[])',
      [this.channelId, kind, pgArray(keys)],
    );
    return new Map(rows.map((row) => [row.internal_key, row.external_id]));
  }
}

const visible = (status: ResourceStatus | null) => status === 'active' || status === 'inactive';

/** Internal key of a photo or rate plan: unique across properties, stable while the platform keeps its key. */
export function childKey(propertyId: string, key: string): string {
  return `${propertyId}/${key}`;
}
