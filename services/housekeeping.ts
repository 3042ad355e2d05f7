import { dropPastWindows } from '../db/counters.ts';
import { keepPartitions, type PartitionFailure } from '../db/partition-job.ts';
import { PARTITIONED_TABLES, type PartitionedTable } from '../db/partitions.ts';
import { pruneSandboxRequests } from '../db/sandbox-requests.ts';
import { dropDeletedEndpoints } from '../db/webhook-endpoints.ts';
import type { ServiceDeps } from './deps.ts';
import { resealOwnerConnectKeys } from './owner-connect/key-housekeeping.ts';
import { resealWebhookSecrets } from './webhook-housekeeping.ts';

// The deployment's housekeeping: retention and re-sealing, one pass a minute for the whole
// deployment (the `housekeeping` workflow on a Temporal schedule that never overlaps itself),
// never once per process.

type Deps = Pick<ServiceDeps, 'orm' | 'clock' | 'log' | 'secrets'>;

export interface HousekeepingStep {
  /** What the step does, for the log: a name, never a value. */
  name: string;
  run: () => Promise<unknown>;
}

/** The steps of a pass, in order: each on its own, so one that fails leaves the others to run. */
export function housekeepingSteps(deps: Deps): HousekeepingStep[] {
  const em = () => deps.orm.em.fork();
  return [
    { name: 'request counters past their window', run: () => dropPastWindows(em(), deps.clock.now()) },
    ...PARTITIONED_TABLES.map((spec) => ({
      name: `partitions of ${spec.table}`,
      run: () => partitionStep(deps, spec),
    })),
    { name: 'deleted endpoints past their retention', run: () => dropDeletedEndpoints(em(), deps.clock.now()) },
    { name: 'sandbox requests past their day', run: () => pruneSandboxRequests(em(), deps.clock.now()) },
    { name: 'webhook secrets sealed again', run: () => resealWebhookSecrets(deps) },
    { name: 'owner-connect keys sealed again', run: () => resealOwnerConnectKeys(deps) },
  ];
}

/**
 * A table's days: created ahead, dropped past its window (db/partition-job.ts). Each partition it
 * could not create or drop is logged at error level, by name; the step then fails.
 */
async function partitionStep(deps: Deps, spec: PartitionedTable): Promise<void> {
  const { created, dropped, failures } = await keepPartitions(deps.orm.em.fork(), spec, deps.clock.now());
  if (created.length + dropped.length > 0) deps.log.info('partitions kept', { table: spec.table, created, dropped });
  for (const failure of failures)
    deps.log.error('could not keep a partition', {
      table: spec.table,
      partition: failure.partition,
      action: failure.action,
      error: errorKind(failure.error),
    });
  if (failures.length > 0) throw new PartitionsFailed(failures);
}

class PartitionsFailed extends Error {
  override name = 'PartitionsFailed';
  readonly failures: PartitionFailure[];
  constructor(failures: PartitionFailure[]) {
    super(`${failures.length} partition(s) could not be kept`);
    this.failures = failures;
  }
}

/**
 * One pass: every step, each logged at error level when it fails (its name and the error's
 * class or code: a database error's message may quote a row). Answers the names of the failed
 * steps; the caller fails the run with them, so it shows as failed where operators look.
 */
export async function runHousekeeping(deps: Deps, steps = housekeepingSteps(deps)): Promise<string[]> {
  const failed: string[] = [];
  for (const step of steps) {
    const started = Date.now();
    try {
      await step.run();
    } catch (error) {
      failed.push(step.name);
      deps.log.error('housekeeping step failed', {
        step: step.name,
        error: errorKind(error),
        durationMs: Date.now() - started,
      });
    }
  }
  return failed;
}

function errorKind(error: unknown): string {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return typeof error;
}
