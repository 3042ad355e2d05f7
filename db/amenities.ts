import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AMENITY_CATALOGUE_RELEASE,
  amenityFingerprint,
  type AmenityDefinition,
} from '../domain/catalogue/amenities.ts';
import { wholeSeconds } from '../domain/time.ts';
import { withChannelLog } from './catalogue/channel-log.ts';
import { AmenityReleaseSchema, type AmenityRelease } from './entities/index.ts';

/**
 * Applies the amenity catalogue this release ships to what the deployment has served, in one
 * transaction: a code served for the first time is `active` from `now` (on an empty table, the
 * whole catalogue takes its release's version and instant); a served code whose name, category
 * or OTA codes the release changes takes a higher version and `now`, with `amenity.updated` to
 * every channel; a served code the release no longer ships is retired for good (`deleted`, a
 * higher version, `now`), with `amenity.deleted` to every channel. A code once deleted is never
 * served again. Idempotent.
 *
 * A row served before its fingerprint was kept counts as changed once: what an earlier release
 * changed without a new version then reaches channels, at the price of one spare re-read.
 */
export async function applyAmenityRelease(
  em: EntityManager,
  shipped: readonly AmenityDefinition[],
  now: Date,
): Promise<{ added: string[]; changed: string[]; retired: string[] }> {
  return em.fork().transactional(async (tx) => {
    // One applier at a time: processes starting together wait here, then find nothing to do.
    await tx.execute('lock table amenity_release in share row exclusive mode');
    const served = new Map((await tx.find(AmenityReleaseSchema, {})).map((row) => [row.code, row]));
    if (served.size === 0) {
      for (const amenity of shipped) {
        tx.create(AmenityReleaseSchema, {
          code: amenity.code,
          status: 'active',
          version: AMENITY_CATALOGUE_RELEASE.version,
          updatedAt: new Date(AMENITY_CATALOGUE_RELEASE.updated_at),
          definition: amenityFingerprint(amenity),
        });
      }
      await tx.flush();
      return { added: shipped.map((amenity) => amenity.code), changed: [], retired: [] };
    }
    // Instants only grow, so `updated_since` never misses a change of the catalogue.
    const latest = Math.max(...[...served.values()].map((row) => row.updatedAt.getTime()));
    const stamp = new Date(Math.max(wholeSeconds(now).getTime(), latest));
    const wanted = new Set(shipped.map((amenity) => amenity.code));
    const added = shipped.filter((amenity) => !served.has(amenity.code));
    for (const amenity of added)
      tx.create(AmenityReleaseSchema, {
        code: amenity.code,
        status: 'active',
        version: 1,
        updatedAt: stamp,
        definition: amenityFingerprint(amenity),
      });
    const changed: AmenityRelease[] = [];
    for (const amenity of shipped) {
      const row = served.get(amenity.code);
      const fingerprint = amenityFingerprint(amenity);
      if (!row || row.status !== 'active' || row.definition === fingerprint) continue;
      row.version += 1;
      row.updatedAt = stamp;
      row.definition = fingerprint;
      changed.push(row);
    }
    const retired = [...served.values()].filter((row) => row.status === 'active' && !wanted.has(row.code));
    for (const row of retired) {
      row.status = 'deleted';
      row.version += 1;
      row.updatedAt = stamp;
    }
    await tx.flush();
    const announced = [
      ...changed.map((row) => ({ type: 'amenity.updated' as const, row })),
      ...retired.map((row) => ({ type: 'amenity.deleted' as const, row })),
    ].sort((a, b) => (a.row.code < b.row.code ? -1 : 1));
    if (announced.length > 0) {
      const clock = { now: () => now };
      const channels = await tx.execute<{ id: string }[]>('select id from channel order by id');
      for (const channel of channels) {
        await withChannelLog(tx, channel.id, stamp, async (log) => {
          for (const { type, row } of announced)
            await log.append(type, () => ({ object: 'amenity', id: row.code, version: row.version }), clock);
        });
      }
    }
    return {
      added: added.map((amenity) => amenity.code),
      changed: changed.map((row) => row.code).sort(),
      retired: retired.map((row) => row.code).sort(),
    };
  });
}

/** Every amenity the deployment has served, with its status, version and instant. */
export function servedAmenities(em: EntityManager): Promise<AmenityRelease[]> {
  return em.find(AmenityReleaseSchema, {});
}
