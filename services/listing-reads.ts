import { idOfRef } from '../db/catalogue/sources.ts';
import { reportChangesOfProperty, reportsOfProperty, statsOfProperty } from '../db/listings.ts';
import type { ReportedState } from '../domain/listings/report.ts';
import { ProblemError } from '../domain/problems.ts';
import { toInstant } from '../domain/time.ts';
import type { ServiceDeps } from './deps.ts';
import { reportedState, reportRecord, type ReportRecord } from './listings.ts';

/**
 * What the platform (and the host's dashboard) reads of the channels' reports on a property,
 * addressed by the platform's reference. Channels that sent nothing are absent.
 */

type Deps = Pick<ServiceDeps, 'orm'>;

/** Changes kept per channel are all stored; a read shows the latest this many. */
export const HISTORY_SHOWN = 100;

export interface ChannelListing extends ReportRecord {
  channel: string;
  /** The id the channel knows the property by. */
  property_id: string | null;
  /** Changes of the reported state, newest first; `changed_at` is the receipt that made each. */
  history: (ReportedState & { changed_at: string })[];
}

async function propertyId(deps: Deps, ref: string): Promise<string> {
  const id = await idOfRef(deps.orm.em.fork(), 'property', ref);
  if (!id) throw new ProblemError('not_found');
  return id;
}

export async function propertyListings(deps: Deps, ref: string): Promise<{ property: string; data: ChannelListing[] }> {
  const id = await propertyId(deps, ref);
  const em = deps.orm.em.fork();
  const [reports, changes] = await Promise.all([
    reportsOfProperty(em, id),
    reportChangesOfProperty(em.fork(), id, HISTORY_SHOWN),
  ]);
  return {
    property: ref,
    data: reports.map((report) => ({
      channel: report.channel,
      property_id: report.externalId,
      ...reportRecord(report),
      history: changes
        .filter((change) => change.channelId === report.channelId)
        .map((change) => ({ ...reportedState(change), changed_at: toInstant(change.receivedAt) })),
    })),
  };
}

export interface ChannelStats {
  channel: string;
  days: { date: string; views: number; clicks_to_booking: number }[];
}

/** Each channel's reported days from `from` up to `to` (exclusive); a day without a report is absent. */
export async function propertyStats(
  deps: Deps,
  ref: string,
  from: string,
  to: string,
): Promise<{ property: string; from: string; to: string; data: ChannelStats[] }> {
  const id = await propertyId(deps, ref);
  const rows = await statsOfProperty(deps.orm.em.fork(), id, from, to);
  const byChannel = new Map<string, ChannelStats>();
  for (const row of rows) {
    let entry = byChannel.get(row.channel);
    if (!entry) byChannel.set(row.channel, (entry = { channel: row.channel, days: [] }));
    entry.days.push({ date: row.day, views: row.views, clicks_to_booking: row.clicksToBooking });
  }
  return { property: ref, from, to, data: [...byChannel.values()] };
}
