import type { EntityManager } from '@mikro-orm/postgresql';
import { literal } from './log-rows.ts';

/**
 * Many properties at once, for tests and benches of how a cost grows with the data: a property
 * the service wrote (through the platform interface) and showed to a channel is copied in SQL, row
 * for row in every table the service writes for it (`property`, `distribution`, `ari_property`, `ari_night`,
 * `channel_id`, `channel_resource`), under fresh internal ids and fresh channel ids of the same
 * shape, the channel's body naming the copy's ids. Copies share the template's location and owner.
 *
 * A copy's internal id is a digest of the template's and its number, so copies `from..to` can be
 * added in steps and each statement finds the same ids again. Copies keep the template's
 * stamps and versions. The cost tests (test/support/clones.ts), `bench:availability` and
 * `bench:scale` copy with this one statement set.
 */
export async function cloneProperty(
  em: EntityManager,
  template: { id: string; channelId: string },
  from: number,
  to: number,
  options: { nights?: boolean; vacuum?: boolean } = {},
): Promise<void> {
  const clones = `(select md5(?::text || '/' || i)::uuid as id, i from generate_series(?::int, ?::int) as i)`;
  const cloneArgs = [template.id, from, to];
  const ids = await em.execute<{ kind: string; internal_key: string; external_id: string }[]>(
    `select kind, internal_key, external_id from channel_id
      where channel_id = ? and (internal_key = ? or internal_key like ? || '/%') order by kind, internal_key`,
    [template.channelId, template.id, template.id],
  );
  // A copy's channel id: the template's prefix, then '0' and 25 hex digits of a digest (a subset of
  // lowercase Crockford base32), unique per copy and kind.
  const cloneId = (id: (typeof ids)[number]) =>
    `${literal(id.external_id.slice(0, 4) + '0')} || substr(md5(c.id::text || ${literal(id.kind + id.internal_key.slice(template.id.length))}), 1, 25)`;
  const property = ids.find((id) => id.kind === 'property');
  if (!property) throw new Error('the template has no id on the channel');
  const body = ids.reduce((text, id) => `replace(${text}, ${literal(id.external_id)}, ${cloneId(id)})`, 'r.body::text');
  await em.execute(
    `insert into property (id, ref, location_id, owner_id, content, created_at, updated_at)
     select c.id, p.ref || '-' || c.i, p.location_id, p.owner_id, p.content, p.created_at, p.updated_at
       from ${clones} c, property p where p.id = ?`,
    [...cloneArgs, template.id],
  );
  await em.execute(
    `insert into distribution (property_id, channel_id, created_at)
     select c.id, d.channel_id, d.created_at from ${clones} c, distribution d where d.property_id = ?`,
    [...cloneArgs, template.id],
  );
  await em.execute(
    `insert into ari_property (property_id, currency, version, updated_at, horizon_end, timezone)
     select c.id, a.currency, a.version, a.updated_at, a.horizon_end, a.timezone from ${clones} c, ari_property a where a.property_id = ?`,
    [...cloneArgs, template.id],
  );
  // A copy's nights together, in night order, as a property's first write lays them out. Left out
  // when the test reads no copy's nights (a year of them is most of the rows).
  if (options.nights !== false)
    await em.execute(
      `insert into ari_night (property_id, night, body)
     select c.id, n.night, n.body from ${clones} c
       cross join lateral (select night, body from ari_night where property_id = ? and c.id is not null order by night offset 0) n`,
      [...cloneArgs, template.id],
    );
  for (const id of ids) {
    await em.execute(
      `insert into channel_id (channel_id, kind, internal_key, external_id)
       select ?, ?, c.id::text || ?, ${cloneId(id)} from ${clones} c`,
      [template.channelId, id.kind, id.internal_key.slice(template.id.length), ...cloneArgs],
    );
  }
  await em.execute(
    `insert into channel_resource (channel_id, kind, internal_id, external_id, status, version, updated_at, body, location_id, owner_id)
     select r.channel_id, r.kind, c.id, ${cloneId(property)}, r.status, r.version, r.updated_at, (${body})::json, r.location_id, r.owner_id
       from ${clones} c, channel_resource r where r.channel_id = ? and r.kind = 'property' and r.internal_id = ?`,
    [...cloneArgs, template.channelId, template.id],
  );
  // What autovacuum does after a load this size: the planner then knows the tables' sizes. Left to
  // the caller with `vacuum: false` (bench:availability times it apart).
  if (options.vacuum !== false)
    await em.execute('vacuum analyze property, distribution, ari_property, ari_night, channel_id, channel_resource');
}
