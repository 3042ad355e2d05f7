import { beginCatchUp, countProperties, recordCatchUp } from '../db/certificate-expiry-catch-up.ts';
import { propertiesAfter } from '../db/catalogue/legal-status.ts';
import { addDays } from '../domain/time.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The certificate-expiry catch-up (workflows/certificate-expiry-catch-up.ts): after a worker
 * start, every property with an end date still ahead gets its certificate-expiry workflow if it
 * has none running, so properties written while Temporal was unreachable (or before this
 * deployment tracked expiries) are watched. It runs beside the service, never before it: the
 * worker's start only asks Temporal for the pass. Its progress is the worker's metrics'
 * (`svc_certificate_expiry_catch_up_remaining_properties`).
 */

type Deps = Pick<ServiceDeps, 'orm' | 'workflows' | 'clock'>;

/** Workflow starts one batch has in flight at once: Temporal answers each in a few ms. */
export const CATCH_UP_CONCURRENCY = 8;

/** At worker start: asks Temporal for a pass, unless one is under way. Best effort: logged, never fatal. */
export async function startCertificateExpiryCatchUp(deps: Pick<ServiceDeps, 'workflows' | 'log'>): Promise<void> {
  try {
    await deps.workflows.startCertificateExpiryCatchUp();
  } catch (error) {
    deps.log.warn('could not start the certificate-expiry catch-up; the next worker start will', {
      error: String(error),
    });
  }
}

/** A pass begins: the properties it will visit, as its progress says. */
export async function beginCertificateExpiryCatchUp(deps: Deps): Promise<number> {
  const em = deps.orm.em.fork();
  const total = await countProperties(em);
  await beginCatchUp(em, deps.workflows.taskQueue, total, deps.clock.now());
  return total;
}

/** One batch of a pass: where it starts, its size, the workflow's time, and the pass's counts so far. */
export interface CatchUpStep {
  after: string | null;
  limit: number;
  nowMs: number;
  total: number;
  visited: number;
}

export interface CatchUpBatch {
  /** Properties read. */
  visited: number;
  /** Of them, those with an end date ahead, whose workflow is now running. */
  dated: number;
  /** Where the next batch starts; null: the pass is over. */
  last: string | null;
}

/**
 * The next `limit` properties after `after`: starts the workflow of each that carries an end
 * date from the day before the workflow's date on (zones differ by at most a day) and has none
 * running, `CATCH_UP_CONCURRENCY` at a time, calling `started` after each; then records what is
 * left. Idempotent: run again, it starts nothing more.
 */
export async function catchUpCertificateExpiries(
  deps: Deps,
  step: CatchUpStep,
  options: { started?: () => void; signal?: AbortSignal } = {},
): Promise<CatchUpBatch> {
  const em = deps.orm.em.fork();
  const since = addDays(new Date(step.nowMs).toISOString().slice(0, 10), -1);
  const properties = await propertiesAfter(em, step.after, step.limit, since);
  const dated = properties.filter((property) => property.dated);
  await deps.workflows.ensureCertificateExpiries(dated, { concurrency: CATCH_UP_CONCURRENCY, ...options });
  const done = properties.length < step.limit;
  const visited = step.visited + properties.length;
  // Properties written since the pass began may outnumber its count: until it ends, at least one is left.
  await recordCatchUp(
    em,
    deps.workflows.taskQueue,
    done ? { remaining: 0, finishedAt: deps.clock.now() } : { remaining: Math.max(step.total - visited, 1) },
  );
  return { visited: properties.length, dated: dated.length, last: done ? null : properties.at(-1)!.id };
}
