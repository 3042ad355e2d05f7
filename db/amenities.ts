import type { EntityManager } from '@mikro-orm/postgresql';
import { AMENITY_CATALOGUE_RELEASE } from '../domain/catalogue/amenities.ts';
import { wholeSeconds } from '../domain/time.ts';
import { withChannelLog } from './catalogue/channel-log.ts';
import { AmenityReleaseSchema, type AmenityRelease } from './entities/index.ts';

/**
 * Applies the amenity catalogue this release ships (its codes) to what the deployment has served,
 * in one transaction: a code served for the first time is `active` from `now` (on an empty table,
 * the whole catalogue takes its release's version and instant); a served code the release no
 * longer ships is retired for good (`deleted`, a higher version, `now`), and every channel's log
 * gets `amenity.deleted`. A code once deleted is never served again. Idempotent.
 */
export async function applyAmenityRelease(em: EntityManager, shipped: readonly string[], now: Date): Promise<{ added: string[]; retired: string[] }> {
  return em.fork().transactional(async (tx) => {
    // One applier at a time: processes starting together wait here, then find nothing to do.
    await tx.execute('lock table amenity_release in share row exclusive mode');
    const served = new Map((await tx.find(AmenityReleaseSchema, {})).map((row) => [row.code, row]));
    if (served.size === 0) {
      for (const code of shipped) tx.create(AmenityReleaseSchema, { code, status: 'active', version: AMENITY_CATALOGUE_RELEASE.version, updatedAt: new Date(AMENITY_CATALOGUE_RELEASE.updated_at) });
      await tx.flush();
      return { added: [...shipped], retired: [] };
    }
    // Instants only grow, so `updated_since` never misses a change of the catalogue.
    const latest = Math.max(...[...served.values()].map((row) => row.updatedAt.getTime()));
    const stamp = new Date(Math.max(wholeSeconds(now).getTime(), latest));
    const wanted = new Set(shipped);
    const added = shipped.filter((code) => !served.has(code));
    for (const code of added) tx.create(AmenityReleaseSchema, { code, status: 'active', version: 1, updatedAt: stamp });
    const retired = [...served.values()].filter((row) => row.status === 'active' && !wanted.has(row.code)).sort((a, b) => (a.code < b.code ? -1 : 1));
    for (const row of retired) {
      row.status = 'deleted';
      row.version += 1;
      row.updatedAt = stamp;
    }
    await tx.flush();
    if (retired.length > 0) {
      const clock = { now: () => now };
      const channels = await tx.execute<{ id: string }[]>('select id from channel order by id');
      for (const channel of channels) {
        await withChannelLog(tx, channel.id, stamp, async (log) => {
          for (const row of retired) await log.append('amenity.deleted', () => ({ object: 'amenity', id: row.code, version: row.version }), clock);
        });
      }
    }
    return { added, retired: retired.map((row) => row.code) };
  });
}

/** Every amenity the deployment has served, with its status, version and instant. */
export function servedAmenities(em: EntityManager): Promise<AmenityRelease[]> {
  return em.find(AmenityReleaseSchema, {});
}
