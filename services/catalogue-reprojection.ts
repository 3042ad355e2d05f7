import { reproject } from '../db/catalogue/projector.ts';
import {
  beginReprojection,
  lockReprojection,
  propertiesLeft,
  propertyIdsAfter,
  recordBaseline,
  recordReprojection,
  reprojectionState,
  type ReprojectionState,
} from '../db/catalogue/reprojection.ts';
import { projectionDigest } from '../domain/catalogue/projection-digest.ts';
import { writeAndNotify } from './durable-processes.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The re-projection of the catalogue after a deploy that changed what channels are shown (its
 * projection revision, domain/catalogue/projection-digest.ts, is not the one the database last
 * re-projected for). It walks every property by id and projects it again
 * for every channel, as a platform write would: a record whose body changed gets a new `version`,
 * its `updated_at` and its event (`property.updated`, and its location's and owner's), in the
 * batch's transaction; an unchanged one is left as it is, so a pass over an up-to-date catalogue
 * writes nothing. Its cursor is committed with each batch, so a pass stopped anywhere (a worker
 * lost, the workflow terminated and started again) goes on after its last batch. Its pace is the
 * workflow's (workflows/catalogue-reprojection.ts): at most the operator's rate of properties a
 * second.
 */

type Deps = Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'secrets' | 'clock'>;

export type { ReprojectionState };

/** Properties one transaction re-projects: short enough that a channel's writers wait for one of them only. */
export const REPROJECTION_TRANSACTION = 10;

let revision: Promise<string> | undefined;

/** This code's projection revision: the digest of its projections, worked out once per process. */
export function projectionRevision(): Promise<string> {
  revision ??= projectionDigest();
  return revision;
}

/**
 * At worker start: when this code's projection revision has not finished re-projecting, asks
 * Temporal for its pass (one per revision; one under way is left as it is). A database with no
 * re-projection at all takes this revision as its baseline instead: its records were written by
 * the code of before, which projected as this does. Best effort: logged, never fatal; the next
 * worker start asks again.
 */
export async function startCatalogueReprojection(deps: Deps, rate: number): Promise<void> {
  try {
    const current = await projectionRevision();
    const em = deps.orm.em.fork();
    if (await recordBaseline(em, current, deps.clock.now())) return;
    const found = await reprojectionState(em, current);
    if (found?.finishedAt) return;
    await deps.workflows.startCatalogueReprojection({ revision: current, rate });
    deps.log.info('catalogue re-projection started', { revision: current, rate });
  } catch (error) {
    deps.log.warn('could not start the catalogue re-projection; the next worker start will', {
      error: String(error),
    });
  }
}

/** A pass begins or goes on: where it stands. `again` starts a finished or stopped one over. */
export async function beginCatalogueReprojection(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  revision: string,
  again = false,
): Promise<ReprojectionState> {
  return beginReprojection(deps.orm.em.fork(), revision, deps.clock.now(), again);
}

export interface ReprojectionBatch {
  /** Properties this batch re-projected. */
  visited: number;
  /** The pass as it stands after the batch; `finishedAt` set once it re-projected the last property. */
  state: ReprojectionState;
}

/**
 * Re-projects up to `limit` properties after the pass's committed cursor, `REPROJECTION_TRANSACTION`
 * to a transaction, each committing its records, their events and the new cursor together; calls
 * `committed` after each. A revision with no row, or one that finished, re-projects nothing.
 */
export async function reprojectCatalogueBatch(
  deps: Deps,
  step: { revision: string; limit: number },
  options: { committed?: () => void; signal?: AbortSignal } = {},
): Promise<ReprojectionBatch> {
  let visited = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const size = Math.min(REPROJECTION_TRANSACTION, step.limit - visited);
    const result = await writeAndNotify(deps, async (tx) => {
      const state = await lockReprojection(tx, step.revision);
      if (!state || state.finishedAt) return { state, ids: [] as string[] };
      const ids = await propertyIdsAfter(tx, state.after, size);
      const written = ids.length === 0 ? 0 : await reproject(tx, { properties: ids }, projectorDeps(deps));
      const next: ReprojectionState = {
        ...state,
        after: ids.at(-1) ?? state.after,
        visited: state.visited + ids.length,
        written: state.written + written,
        finishedAt: ids.length < size ? deps.clock.now() : null,
      };
      await recordReprojection(tx, next);
      return { state: next, ids };
    });
    visited += result.ids.length;
    options.committed?.();
    if (!result.state) throw new Error(`no re-projection of revision ${step.revision} began`);
    if (result.state.finishedAt || visited >= step.limit) return { visited, state: result.state };
  }
}

function projectorDeps(deps: Deps) {
  return { clock: deps.clock, secret: deps.secrets.ring.geo };
}

/** The revision's pass as an operator reads it: where it stands and how many properties it has left. */
export async function catalogueReprojectionStatus(
  deps: Pick<ServiceDeps, 'orm'>,
  revision: string,
): Promise<(ReprojectionState & { left: number }) | null> {
  const em = deps.orm.em.fork();
  const state = await reprojectionState(em, revision);
  if (!state) return null;
  return { ...state, left: state.finishedAt ? 0 : await propertiesLeft(em, state.after) };
}
