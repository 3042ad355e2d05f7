import { parseArgs } from 'node:util';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { replayOptions } from './worker.ts';

/**
 * `npm run replay`: replays recent histories of a live namespace against this checkout's workflow
 * code (or a built bundle) before it is deployed. The committed histories of test/histories stay
 * the CI gate; this is the operator's check against what actually runs.
 */

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Running workflows are the ones a new release must replay (closed ones are only read back). */
export const DEFAULT_QUERY = `ExecutionStatus = 'Running'`;

export const REPLAY_USAGE = `usage: npm run replay -- [--query "<visibility query>"] [--limit N] [--bundle FILE]
  --query   which workflows (Temporal's list filter); default: ${DEFAULT_QUERY}
  --limit   at most this many, the first the namespace lists (recent first); default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}
  --bundle  a built workflow bundle (npm run build:workflows writes dist/workflow-bundle.js);
            default: this checkout's workflows/, bundled now
Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and the TEMPORAL_TLS_* / TEMPORAL_API_KEY
settings the worker uses. Exit 0: every history replayed; 1: any did not; 2: usage or connection.`;

export interface ReplayArguments {
  query: string;
  limit: number;
  /** Path of a built bundle; undefined: bundle workflows/ now. */
  bundle: string | undefined;
}

/** The command line, or an Error whose message says what is wrong with it. */
export function parseReplayArguments(argv: readonly string[]): ReplayArguments {
  const { values } = parseArgs({
    args: [...argv],
    options: { query: { type: 'string' }, limit: { type: 'string' }, bundle: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const query = values.query?.trim() ?? DEFAULT_QUERY;
  if (query === '') throw new Error('--query: empty');
  const limitText = values.limit ?? String(DEFAULT_LIMIT);
  if (!/^\d{1,7}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIMIT)
    throw new Error(`--limit: a whole number from 1 to ${MAX_LIMIT}`);
  return { query, limit: Number(limitText), bundle: values.bundle };
}

export interface ReplaySummary {
  listed: number;
  replayed: number;
  failed: number;
}

/**
 * Lists up to `limit` workflows matching `query`, fetches each one's history and replays it
 * against the code at `bundlePath` (or this checkout's), writing one line per workflow (`ok` or `FAIL`, its type, id and run) and a
 * summary. A history that fails to replay (nondeterminism, or a workflow type the code lacks)
 * counts as failed; the caller exits non-zero on any.
 */
export async function replayRecentHistories(options: {
  client: Client;
  query: string;
  limit: number;
  /** A built bundle; undefined: this checkout's workflow code, bundled now. */
  bundlePath: string | undefined;
  write: (line: string) => void;
}): Promise<ReplaySummary> {
  const { client, query, limit, bundlePath, write } = options;
  const listed: WorkflowExecutionInfo[] = [];
  // The list pages by itself; stop reading once `limit` are in hand.
  for await (const execution of client.workflow.list({ query, pageSize: Math.min(limit, 100) })) {
    listed.push(execution);
    if (listed.length >= limit) break;
  }
  const types = new Map(listed.map((execution) => [execution.runId, execution.type]));
  async function* histories() {
    for (const { workflowId, runId } of listed) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      yield { workflowId, history };
    }
  }
  const workerOptions = replayOptions(bundlePath);
  let replayed = 0;
  let failed = 0;
  for await (const result of Worker.runReplayHistories(workerOptions, histories())) {
    replayed += 1;
    const what = `${types.get(result.runId) ?? '?'} ${result.workflowId} ${result.runId}`;
    if (!result.error) {
      write(`ok   ${what}`);
      continue;
    }
    failed += 1;
    const kind = result.error instanceof DeterminismViolationError ? 'nondeterminism' : 'replay error';
    write(`FAIL ${what}: ${kind}: ${reason(result.error.message)}`);
  }
  write(
    `replayed ${replayed} of ${listed.length} workflow(s) matching ${JSON.stringify(query)} (limit ${limit}): ` +
      `${replayed - failed} ok, ${failed} failed`,
  );
  return { listed: listed.length, replayed, failed };
}

/** The SDK core's own message when the error wraps one (`[TMPRL1100] Nondeterminism error: …`), on one line. */
function reason(text: string): string {
  const core = /message: "((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  return (core ?? text).replace(/\s+/g, ' ').trim();
}
