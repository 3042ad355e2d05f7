import { spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { ROOT, sleep } from './servers.ts';
import type { ApiClient } from './service.ts';

/** What the chaos run reads while it runs: a condition met in time, a channel's key, its whole event log, the worker identities polling a task queue. */

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) return false;
    await sleep(20);
  }
  return true;
}

/**
 * One operator CLI command (`scripts/admin.ts`) on the run's servers: its JSON document. Killed
 * after `timeoutMs` when one is given; a non-zero exit throws with what it printed on stderr.
 */
export async function runAdmin(
  env: Record<string, string>,
  args: readonly string[],
  timeoutMs?: number,
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['scripts/admin.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`admin ${args.join(' ')} exited with ${String(code)}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** A channel and a key that reads the catalogue and availability and manages webhooks, through the operator CLI. */
export async function channelKey(env: Record<string, string>, channel: string): Promise<string> {
  const admin = (...args: string[]) => runAdmin(env, args, 60_000);
  await admin('channel', 'create', channel, '--rate-limit', '1000000');
  const issued = await admin('key', 'issue', channel, '--scopes', 'read:catalog,read:ari,manage:webhooks');
  return String(issued.key);
}

/** Every event of the channel, read page by page from GET /events. */
export async function allEvents(
  api: ApiClient,
  key: string,
  deadline: number,
): Promise<{ id: string; type: string }[]> {
  const events: { id: string; type: string }[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page += 1) {
    const route = `/api/v1/distribution/events?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api.call('GET', route, key);
    if (answer.status !== 200) {
      if (Date.now() > deadline) throw new Error(`GET /events answered ${answer.status}: ${answer.text}`);
      await sleep(500);
      continue;
    }
    const page = answer.json as { data: { id: string; type: string }[]; next_cursor: string; has_more: boolean };
    events.push(...page.data);
    cursor = page.next_cursor;
    if (!page.has_more) return events;
  }
  throw new Error('GET /events: more than 10 000 pages');
}

/** Identities of the workers polling a task queue (workflow or activity tasks), as the server lists them. */
export async function pollingIdentities(address: string, taskQueue: string): Promise<Set<string>> {
  const connection = await Connection.connect({ address, connectTimeout: 5000 });
  try {
    const identities = new Set<string>();
    for (const taskQueueType of [1, 2]) {
      const described = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType,
      });
      for (const poller of described.pollers ?? []) if (poller.identity) identities.add(poller.identity);
    }
    return identities;
  } finally {
    await connection.close();
  }
}
