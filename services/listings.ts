import {
  appendReportChange,
  findReport,
  insertReport,
  listingSubjects,
  updateReport,
  upsertStats,
  type ReportRow,
  type StoredReport,
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

export interface ListingReport extends ReportedState {
  property_id: string;
  updated_at: string;
  received_at: string;
}

const SEEN = new Set(['active', 'inactive']);

async function seenProperty(deps: Deps, channelId: string, propertyId: string) {
  const [subject] = isExternalId('property', propertyId)
    ? await listingSubjects(deps.orm.em.fork(), channelId, [propertyId])
    : [];
  if (!subject || !SEEN.has(subject.status)) throw new ProblemError('not_found');
  return subject;
}

function toRow(state: ReportedState): ReportRow {
  return {
    status: state.status,
    public_url: state.public_url,
    promoted: state.promoted,
    promoted_until: state.promoted_until === null ? null : new Date(state.promoted_until),
    rejection_reason: state.rejection?.reason ?? null,
    rejection_text: state.rejection?.text ?? null,
  };
}

/** The reported state of a stored row, instants as the contract writes them. */
export function reportedState(row: ReportRow): ReportedState {
  return {
    status: row.status,
    public_url: row.public_url,
    promoted: row.promoted,
    promoted_until: row.promoted_until === null ? null : toInstant(new Date(row.promoted_until)),
    rejection: row.rejection_reason === null ? null : { reason: row.rejection_reason, text: row.rejection_text },
  };
}

function present(propertyId: string, row: StoredReport): ListingReport {
  return {
    property_id: propertyId,
    ...reportedState(row),
    updated_at: toInstant(new Date(row.updated_at)),
    received_at: toInstant(new Date(row.received_at)),
  };
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
): Promise<ListingReport> {
  const errors = reportRuleErrors(state);
  if (errors.length > 0) throw invalidParameters(errors);
  const subject = await seenProperty(deps, channelId, propertyId);
  const row = toRow(state);
  const at = wholeSeconds(deps.clock.now());
  const stored = await writeTransaction(deps.orm.em, async (tx) => {
    if (await insertReport(tx, channelId, subject.internal_id, row, at)) {
      await appendReportChange(tx, channelId, subject.internal_id, row, at);
    } else {
      const current = await findReport(tx, channelId, subject.internal_id, { lock: true });
      const changed = !current || !sameReportedState(reportedState(current), reportedState(row));
      await updateReport(tx, channelId, subject.internal_id, row, at, changed);
      if (changed) await appendReportChange(tx, channelId, subject.internal_id, row, at);
    }
    return findReport(tx, channelId, subject.internal_id);
  });
  return present(propertyId, stored!);
}

/** The channel's last report on a property it sees; 404 until it sent one. */
export async function getListingReport(deps: Deps, channelId: string, propertyId: string): Promise<ListingReport> {
  const subject = await seenProperty(deps, channelId, propertyId);
  const stored = await findReport(deps.orm.em.fork(), channelId, subject.internal_id);
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

/**
 * Stores a day of statistics per entry, replacing an earlier report of the same (property, date).
 * The request is taken whole or refused whole: one error per failed rule, each with its pointer
 * (a property the channel does not see, a date outside the property's last 35 days, a
 * (property, date) named twice).
 */
export async function postListingStats(
  deps: Deps,
  channelId: string,
  entries: readonly StatsEntry[],
): Promise<{ accepted: number }> {
  const ids = [...new Set(entries.map((entry) => entry.property_id).filter((id) => isExternalId('property', id)))];
  const subjects = new Map(
    (await listingSubjects(deps.orm.em.fork(), channelId, ids))
      .filter((s) => SEEN.has(s.status))
      .map((s) => [s.external_id, s]),
  );
  const now = deps.clock.now();
  const today = new Map<string, string>();
  const seen = new Map<string, number>();
  const errors: ParameterError[] = [];
  entries.forEach((entry, index) => {
    const subject = subjects.get(entry.property_id);
    if (!subject) {
      errors.push({
        pointer: `/data/${index}/property_id`,
        code: 'not_found',
        detail: 'no property of this channel has this id',
      });
      return;
    }
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
  if (errors.length > 0) throw invalidParameters(errors);
  const at = wholeSeconds(now);
  await writeTransaction(deps.orm.em, (tx) =>
    upsertStats(
      tx,
      channelId,
      // In key order, so two reports naming the same days lock them in the same order.
      entries
        .map((entry) => ({
          propertyId: subjects.get(entry.property_id)!.internal_id,
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
