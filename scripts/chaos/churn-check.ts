/** An event as a channel reads it from GET /events: its id, type and the record it names. */
export interface ReadEvent {
  id: string;
  type: string;
  data: { object?: string; id?: string; version?: number };
}

export interface CommitOrderFindings {
  /** Events the syncing channel read, page after page, while the catalogue moved. */
  polled: number;
  /** Events a full read from the start holds at the end (from the poller's first position on). */
  full: number;
  /** Events of the full read the poller never saw: committed behind a position it had passed. */
  missedByPoller: number;
  /** Events the poller read in another order than the full read holds them. */
  reordered: number;
  /** Events read twice by the poller (a cursor that went back). */
  repeated: number;
  /** Events whose record's version was not higher than the last one read for that record. */
  versionRegressions: number;
  /** A few faults, to start looking from. */
  sample: string[];
}

/**
 * Holds the commit-order guarantee as a channel sees it: reading GET /events page by page while
 * writes commit, the channel meets every event a full read finds afterwards, once, in the same
 * order, and each record's versions only increase. `full` is the whole log read at the end;
 * `polled` what the channel read from `fromIndex` of it on.
 */
export function checkCommitOrder(polled: ReadEvent[], full: ReadEvent[], fromIndex = 0): CommitOrderFindings {
  const sample: string[] = [];
  const tail = full.slice(fromIndex);
  const seen = new Set<string>();
  let repeated = 0;
  for (const event of polled) {
    if (seen.has(event.id)) repeated += 1;
    seen.add(event.id);
  }
  const missed = tail.filter((event) => !seen.has(event.id));
  for (const event of missed.slice(0, 5)) sample.push(`missed ${event.id} ${event.type}`);
  const polledOrder = polled.map((event) => event.id).filter((id, i, ids) => ids.indexOf(id) === i);
  const fullOrder = tail.map((event) => event.id).filter((id) => seen.has(id));
  let reordered = 0;
  for (let i = 0; i < fullOrder.length; i += 1) if (polledOrder[i] !== fullOrder[i]) reordered += 1;
  if (reordered > 0) sample.push(`first reordered at ${fullOrder.findIndex((id, i) => polledOrder[i] !== id)}`);
  const last = new Map<string, number>();
  let versionRegressions = 0;
  for (const event of full) {
    const { object, id, version } = event.data;
    if (typeof version !== 'number' || !id) continue;
    const record = `${object ?? ''} ${id}`;
    if (version <= (last.get(record) ?? 0)) {
      versionRegressions += 1;
      if (sample.length < 10) sample.push(`version ${version} after ${last.get(record)} for ${record} (${event.id})`);
    }
    last.set(record, Math.max(version, last.get(record) ?? 0));
  }
  return {
    polled: polled.length,
    full: tail.length,
    missedByPoller: missed.length,
    reordered,
    repeated,
    versionRegressions,
    sample,
  };
}
