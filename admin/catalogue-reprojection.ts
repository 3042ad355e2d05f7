import { parseArgs } from 'node:util';
import { toInstant } from '../domain/time.ts';
import { catalogueReprojectionStatus, projectionRevision } from '../services/catalogue-reprojection.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

/** Where the revision's re-projection stands, as the operator reads it. */
async function statusDocument(ctx: AdminContext, revision: string) {
  const status = await catalogueReprojectionStatus(ctx, revision);
  return {
    revision,
    running: await ctx.workflows.catalogueReprojectionRunning(revision),
    visited: status?.visited ?? 0,
    left: status?.left ?? null,
    written: status?.written ?? 0,
    started_at: status ? toInstant(status.startedAt) : null,
    finished_at: status?.finishedAt ? toInstant(status.finishedAt) : null,
  };
}

function rateOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rate = Number(value);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 10_000)
    throw new AdminError('--rate is properties a second, above 0 and at most 10000');
  return rate;
}

export const catalogueCommands = {
  /**
   * `catalogue reproject [--rate N] [--again]`: starts this code's re-projection unless it runs
   * (a running one takes the new rate); `--again` starts a finished revision over from the first
   * property. Answers where it stands.
   */
  reproject: async (args: string[], ctx: AdminContext) => {
    const { values } = parseArgs({
      args,
      strict: true,
      options: { rate: { type: 'string' }, again: { type: 'boolean', default: false } },
    });
    const rate = rateOf(values.rate);
    const revision = await projectionRevision();
    const running = await ctx.workflows.catalogueReprojectionRunning(revision);
    if (running && values.again) throw new AdminError('a re-projection runs; let it finish before --again');
    if (running) {
      if (rate !== undefined) await ctx.workflows.setCatalogueReprojectionRate(revision, rate);
    } else {
      await ctx.workflows.startCatalogueReprojection({
        revision,
        rate: rate ?? ctx.config.reprojectionRate,
        again: values.again,
      });
    }
    return statusDocument(ctx, revision);
  },
  /** `catalogue reprojection`: where this code's re-projection stands. */
  reprojection: async (args: string[], ctx: AdminContext) => {
    parseArgs({ args, strict: true, options: {} });
    return statusDocument(ctx, await projectionRevision());
  },
};
