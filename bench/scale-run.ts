/**
 * What one run of `bench:scale` shares between its sizes: the PostgreSQL server, a working
 * directory (the service's data directories and logs), and the service's environment with the
 * bench's fixed secrets. Each size gets a Temporal dev server of its own, fresh: the service
 * starts on it as on a new deployment's.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { startDevServer, type RunningTemporal } from '../infra/embedded-temporal.ts';
import { workflowIds } from '../workflows/ids.ts';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';
import { BENCH_SERVER_SECRET, benchServerUrl, type BenchStand } from './service-stand.ts';

export const PLATFORM_TOKEN = 'bench-scale-platform-token-0123456789abcdefghij';
export const TASK_QUEUE = 'bench-scale';

export interface ScaleRun {
  serverUrl: string;
  workDir: string;
  /** The service's variables (and the bench's own parts' configuration). */
  serviceEnv: Record<string, string>;
  platformToken: string;
  startupTimeoutMs: number;
  /** How long the cases wait for the service to be quiet after its start before they run beside its work. */
  quietTimeoutMs: number;
  say: (line: string) => void;
}

/** A run's settings. */
export async function startRun(): Promise<ScaleRun> {
  const workDir = process.env.SCALE_WORK_DIR ?? path.join(os.tmpdir(), 'bench-scale');
  await mkdir(workDir, { recursive: true });
  return {
    serverUrl: benchServerUrl(),
    workDir,
    serviceEnv: {
      // As `npm start` runs: development, where a receiver on this machine may be delivered to.
      NODE_ENV: 'development',
      SERVER_SECRET: BENCH_SERVER_SECRET,
      PLATFORM_TOKEN,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      WEBHOOK_ALLOW_LOCAL: 'true',
      LOG_LEVEL: 'warn',
    },
    platformToken: PLATFORM_TOKEN,
    startupTimeoutMs: Number(process.env.SCALE_STARTUP_TIMEOUT_S ?? 600) * 1000,
    quietTimeoutMs: Number(process.env.SCALE_QUIET_TIMEOUT_S ?? 600) * 1000,
    say: (line) => process.stderr.write(`bench:scale: ${line}\n`),
  };
}

/** A fresh Temporal dev server for one size. */
export const startTemporal = (): Promise<RunningTemporal> => startDevServer({ searchAttributes: SEARCH_ATTRIBUTES });

/**
 * The housekeeping schedule made before the service starts, and paused, as an operator may pause
 * it: the service leaves a schedule that exists as it is, so no pass runs while the bench reads,
 * and the bench times one pass itself on data whose oldest day it knows is past the window.
 */
export async function pauseHousekeeping(stand: BenchStand): Promise<void> {
  await stand.deps.workflows.ensureHousekeepingSchedule();
  const client = stand.temporal.client;
  const schedule = client.schedule.getHandle(workflowIds.housekeeping(TASK_QUEUE));
  await schedule.pause('bench:scale times one housekeeping pass itself');
  // A pass the schedule started before the pause waits for a worker: ended before any starts.
  for (const action of (await schedule.describe()).info.runningActions)
    await client.workflow.getHandle(action.workflow.workflowId).terminate('bench:scale paused the housekeeping');
}

export interface CatchUpLeft {
  total: number;
  remaining: number;
}

/**
 * Ends the certificate-expiry catch-up the worker's start asked for, once the start-up is timed.
 * On a fresh Temporal every property's workflow is new, and at 100x the pass makes them for hours
 * (about 15 a second here); a deployment's Temporal keeps them, so its restarts' passes find them
 * running. The cases measure the service, not that first pass: the figures say what it had left
 * (every property when the pass had not begun since `since`, the service's start; the build's
 * own pass leaves a row behind).
 */
export async function stopCatchUp(stand: BenchStand, sql: pg.Client, since: Date): Promise<CatchUpLeft> {
  const handle = stand.temporal.client.workflow.getHandle(workflowIds.certificateExpiryCatchUp(TASK_QUEUE));
  for (let tries = 0; ; tries += 1) {
    try {
      const { status } = await handle.describe();
      if (status.name === 'RUNNING') await handle.terminate('bench:scale times the cases without the first pass');
      break;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError) || tries >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const { rows } = await sql.query<{ total: string; remaining: number | null }>(
    `select (select count(*) from property) as total,
            (select remaining from certificate_expiry_catch_up where task_queue = $1 and started_at >= $2) as remaining`,
    [TASK_QUEUE, since],
  );
  const total = Number(rows[0]!.total);
  return { total, remaining: rows[0]!.remaining ?? total };
}
