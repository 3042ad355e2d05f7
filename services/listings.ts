import {
  appendReportChange,
  findReport,
  insertReport,
  listingSubjects,
  updateReport,
  upsertStats,
  type ListingReport,
  type ListingReportState,
} from '../db/listings.ts';
import { writeTransaction } from '../db/sql.ts';
import { isExternalId } from '../domain/catalogue/ids.ts';
import { reportRuleErrors, sameReportedState, statsDateError, type ReportedState } from '../domain/listings/report.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import { localDate, toInstant, wholeSeconds } from '../domain/time.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * What a channel reports back: the publication state of a property on its side and daily
 * statistics. The service is the receiver: nothing here emits an event or a webhook. A property
 * is reportable while the channel sees it (`active` or `inactive`); withdrawn, deleted, unknown,
 * another channel's or a malformed id are answered the same 404.
 */

type Deps = Pick<ServiceDeps, 'orm' | 'clock'>;

/** A stored report's state and its two instants, as every read of a report writes them. */
export interface ReportRecord extends ReportedState {
  updated_at: string;
  received_at: string;
}

/** The report as the contract writes it. */
export interface ListingReportRecord extends ReportRecord {
  property_id: string;
}

const SEEN = new Set(['active', 'inactive']);

async function seenProperty(deps: Deps, channelId: string, propertyId: string) {
  const [subject] = isExternalId('property', propertyId)
    ? await listingSubjects(deps.orm.em.fork(), channelId, [propertyId])
    : [];
  if (!subject || !SEEN.has(subject.status)) throw new ProblemError('not_found');
  return subject;
}

/** The state as stored; `promoted_until` is the request's instant, parsed here. */
function storedState(state: ReportedState): ListingReportState {
  return {
    status: state.status,
    publicUrl: state.public_url,
    promoted: state.promoted,
    promotedUntil: state.promoted_until === null ? null : new Date(state.promoted_until),
    rejectionReason: state.rejection?.reason ?? null,
    rejectionText: state.rejection?.text ?? null,
  };
}

/** The reported state of a stored report, instants as the contract writes them. */
export function reportedState(state: ListingReportState): ReportedState {
  return {
    status: state.status,
    public_url: state.publicUrl,
    promoted: state.promoted,
    promoted_until: state.promotedUntil === null ? null : toInstant(state.promotedUntil),
    rejection: state.rejectionReason === null ? null : { reason: state.rejectionReason, text: state.rejectionText },
  };
}

export function reportRecord(report: ListingReport): ReportRecord {
  return {
    ...reportedState(report),
    updated_at: toInstant(report.updatedAt),
    received_at: toInstant(report.receivedAt),
  };
}

function present(propertyId: string, report: ListingReport): ListingReportRecord {
  return { property_id: propertyId, ...reportRecord(report) };
}

/**
 * Stores the channel's report. `updated_at` is the receipt at which the reported state last
 * changed: a re-sent identical report only moves `received_at`. Each change is kept in the
 * report's history; a refused report writes nothing.
 */
export async function putListingReport(
  deps: Deps,
  channelId: string,
  propertyId: string,
  state: ReportedState,
): Promise<ListingReportRecord> {
  const errors = reportRuleErrors(state);
  if (errors.length > 0) throw invalidParameters(errors);
  const subject = await seenProperty(deps, channelId, propertyId);
  const stateToStore = storedState(state);
  const at = wholeSeconds(deps.clock.now());
  const stored = await writeTransaction(deps.orm.em, async (tx) => {
    if (await insertReport(tx, channelId, subject.internalId, stateToStore, at)) {
      await appendReportChange(tx, channelId, subject.internalId, stateToStore, at);
    } else {
      const current = await findReport(tx, channelId, subject.internalId, { lock: true });
      const changed = !current || !sameReportedState(reportedState(current), reportedState(stateToStore));
      await updateReport(tx, channelId, subject.internalId, stateToStore, at, changed);
      if (changed) await appendReportChange(tx, channelId, subject.internalId, stateToStore, at);
    }
    return findReport(tx, channelId, subject.internalId);
  });
  return present(propertyId, stored!);
}

/** The channel's last report on a property it sees; 404 until it sent one. */
export async function getListingReport(
  deps: Deps,
  channelId: string,
  propertyId: string,
): Promise<ListingReportRecord> {
  const subject = await seenProperty(deps, channelId, propertyId);
  const stored = await findReport(deps.orm.em.fork(), channelId, subject.internalId);
  // The same answer as for a property the channel does not see.
  if (!stored) throw new ProblemError('not_found');
  return present(propertyId, stored);
}

export interface StatsEntry {
  property_id: string;
  date: string;
  views: number;
  clicks_to_booking: number;
}

/** What of a statistics entry the rules after its shape read: absent where the entry's shape is broken. */
export interface StatsEntryKey {
  property_id?: string | undefined;
  date?: string | undefined;
}

/**
 * The rules of a statistics request beyond each entry's shape, one error per failed rule with its
 * pointer: a property the channel does not see, a date outside the property's last 35 days, a
 * (property, date) named twice. An entry is checked only as far as it has a well-formed
 * `property_id` and `date`.
 */
async function statsRules(deps: Deps, channelId: string, entries: readonly StatsEntryKey[]) {
  const ids = [
    ...new Set(
      entries
        .map((entry) => entry.property_id)
        .filter((id): id is string => id !== undefined && isExternalId('property', id)),
    ),
  ];
  const subjects = new Map(
    (await listingSubjects(deps.orm.em.fork(), channelId, ids))
      .filter((s) => SEEN.has(s.status))
      .map((s) => [s.externalId, s]),
  );
  const now = deps.clock.now();
  const today = new Map<string, string>();
  const seen = new Map<string, number>();
  const errors: ParameterError[] = [];
  entries.forEach((entry, index) => {
    if (entry.property_id === undefined) return;
    const subject = subjects.get(entry.property_id);
    if (!subject) {
      errors.push({
        pointer: `/data/${index}/property_id`,
        code: 'not_found',
        detail: 'no property of this channel has this id',
      });
      return;
    }
    if (entry.date === undefined) return;
    let localToday = today.get(subject.timezone);
    if (localToday === undefined) today.set(subject.timezone, (localToday = localDate(now, subject.timezone)));
    const dateError = statsDateError(entry.date, localToday);
    if (dateError) errors.push({ pointer: `/data/${index}/date`, ...dateError });
    const key = `${entry.property_id}|${entry.date}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      errors.push({
        pointer: `/data/${index}/date`,
        code: 'duplicate',
        detail: `the same property and date as /data/${first}`,
      });
  });
  return { errors, subjects, now };
}

/** The failed rules of `statsRules`, for a request whose entries' shapes were refused. */
export async function listingStatsRuleErrors(
  deps: Deps,
  channelId: string,
  entries: readonly StatsEntryKey[],
): Promise<ParameterError[]> {
  return (await statsRules(deps, channelId, entries)).errors;
}

/**
 * Stores a day of statistics per entry, replacing an earlier report of the same (property, date).
 * The request is taken whole or refused whole, one error per failed rule (`statsRules`).
 */
export async function postListingStats(
  deps: Deps,
  channelId: string,
  entries: readonly StatsEntry[],
): Promise<{ accepted: number }> {
  const { errors, subjects, now } = await statsRules(deps, channelId, entries);
  if (errors.length > 0) throw invalidParameters(errors);
  const at = wholeSeconds(now);
  await writeTransaction(deps.orm.em, (tx) =>
    upsertStats(
      tx,
      channelId,
      // In key order, so two reports naming the same days lock them in the same order.
      entries
        .map((entry) => ({
          propertyId: subjects.get(entry.property_id)!.internalId,
          day: entry.date,
          views: entry.views,
          clicks: entry.clicks_to_booking,
        }))
        .sort((a, b) =>
          a.propertyId < b.propertyId
            ? -1
            : a.propertyId > b.propertyId
              ? 1
              : a.day < b.day
                ? -1
                : a.day > b.day
                  ? 1
                  : 0,
        ),
      at,
    ),
  );
  return { accepted: entries.length };
}
