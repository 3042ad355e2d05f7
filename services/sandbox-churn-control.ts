import type { ChurnCounts } from '../domain/sandbox/churn.ts';
import type { ServiceDeps } from './deps.ts';
import { SandboxChurnOnly } from './sandbox-churn.ts';

/** The operator's side of the sandbox churn: start it (or pace the one that runs), stop it, read it. */

type Deps = Pick<ServiceDeps, 'workflows' | 'config'>;

export interface ChurnStart {
  rate: number;
  seed: number;
  channels: readonly string[];
  /** Changes to make before it ends by itself; absent: until stopped. */
  changes?: number;
}

export interface ChurnStatus {
  running: boolean;
  /** Temporal's word for the last run (`RUNNING`, `COMPLETED`, `FAILED`…); null: never started. */
  status: string | null;
  seed: number | null;
  rate: number | null;
  /** Changes made so far: the number of the next one. */
  changes: number;
  applied: ChurnCounts;
  skipped: ChurnCounts;
}

export async function sandboxChurnStatus(deps: Pick<ServiceDeps, 'workflows'>): Promise<ChurnStatus> {
  const state = await deps.workflows.sandboxChurnState();
  const progress = state?.progress ?? null;
  return {
    running: state?.running ?? false,
    status: state?.status ?? null,
    seed: progress?.seed ?? null,
    rate: progress?.rate ?? null,
    changes: progress?.next ?? 0,
    applied: progress?.applied ?? {},
    skipped: progress?.skipped ?? {},
  };
}

/**
 * Starts the churn, or gives the one that runs the new rate. A churn started again with the seed
 * of the last one goes on from its next change, so the same seed never makes a change twice.
 * Refused outside a sandbox deployment.
 */
export async function startSandboxChurn(deps: Deps, request: ChurnStart): Promise<ChurnStatus & { started: boolean }> {
  if (deps.config.environment !== 'sandbox') throw new SandboxChurnOnly();
  const before = await sandboxChurnStatus(deps);
  if (before.running) {
    await deps.workflows.setSandboxChurnRate(request.rate);
    return { ...(await sandboxChurnStatus(deps)), started: false };
  }
  const next = before.seed === request.seed ? before.changes : 0;
  await deps.workflows.startSandboxChurn({
    seed: request.seed,
    rate: request.rate,
    channels: [...request.channels],
    next,
    ...(request.changes === undefined ? {} : { until: next + request.changes }),
    ...(next > 0 ? { applied: before.applied, skipped: before.skipped } : {}),
  });
  return { ...(await sandboxChurnStatus(deps)), running: true, started: true };
}

/** Stops the churn after the change under way; answers where it stood. */
export async function stopSandboxChurn(
  deps: Pick<ServiceDeps, 'workflows'>,
): Promise<ChurnStatus & { stopped: boolean }> {
  const stopped = await deps.workflows.stopSandboxChurn();
  return { ...(await sandboxChurnStatus(deps)), stopped };
}
