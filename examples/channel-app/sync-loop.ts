import { describeFailure } from './api-fetch.ts';
import type { ChannelSync, SyncReport } from './kit.ts';
import type { Work } from './work-queue.ts';

/**
 * The periodic sync (docs/contract.md#lists-pages-and-changes): webhooks say what changed, and a
 * loop beside them catches what a lost or late delivery would miss. The kit's `ChannelSync` walks
 * each list page by page with its cursor: the first pass is a full listing, every later one asks
 * for the changes since the largest `updated_at` it received (`updated_since`), tombstones
 * included. It shares its store with the webhook receiver, so both apply by the same version rule.
 * Each pass waits its turn in the app's work queue, behind the reads webhooks asked for; the
 * next is queued `intervalMs` after the last one ended. A 429 is waited out
 * by the kit's client (its `Retry-After`); a pass that fails is logged and the next one tries again.
 */
export interface SyncLoop {
  /** Resolves when the pass under way, if any, has ended. */
  stop(): Promise<void>;
}

export function startSyncLoop(options: {
  sync: ChannelSync;
  intervalMs: number;
  work: Work;
  log: (line: string) => void;
}): SyncLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const pass = async () => {
    try {
      const report = await options.work(() => options.sync.sync());
      if (!stopped) options.log(`sync: ${summary(report)}`);
    } catch (error) {
      if (!stopped) options.log(`sync failed: ${describeFailure(error)}; next pass in ${options.intervalMs / 1000} s`);
    }
  };
  const schedule = () => {
    if (stopped) return;
    running = pass().then(() => {
      if (!stopped) timer = setTimeout(schedule, options.intervalMs);
    });
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      return running;
    },
  };
}

/** `2 pages; properties 1 of 3 applied (since 2026-…); resynced owners`. */
function summary(report: SyncReport): string {
  const lists = Object.keys(report.since) as (keyof SyncReport['since'])[];
  const parts = lists.map((list) => {
    const since = report.since[list];
    return `${list} ${report.applied[list] ?? 0} of ${report.received[list] ?? 0} applied (${since ? `since ${since}` : 'full listing'})`;
  });
  const resynced = report.resynced.length ? `; started again after 410: ${report.resynced.join(', ')}` : '';
  return `${report.requests} page${report.requests === 1 ? '' : 's'}; ${parts.join(', ')}${resynced}`;
}
