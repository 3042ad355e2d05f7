/**
 * The rules judged from the channel's own requests (the sandbox request log): the re-reads an event
 * asks for, the sync loop's paging and resuming, and leaving a withdrawn property alone. Pure.
 */
import { REREAD_EARLY_MS, REREAD_WITHIN_MS } from './limits.ts';
import {
  failed,
  is2xx,
  LIST_ROUTES,
  listed,
  passed,
  relativeTo,
  statusText,
  targetOf,
  type RequestTarget,
} from './observed.ts';
import type { CertificationObservations, ObservedRequest, RuleVerdict } from './rules.ts';

const READS = new Set(['GET', 'HEAD']);
const REREAD_SECONDS = REREAD_WITHIN_MS / 1000;

function reads(requests: readonly ObservedRequest[]): RequestTarget[] {
  return requests.map(targetOf).filter((target) => READS.has(target.method));
}

function readOk(target: RequestTarget): boolean {
  return is2xx(target.request.status) || target.request.status === 304;
}

/** Received from REREAD_EARLY_MS before `at` to REREAD_WITHIN_MS after it. */
function inRereadWindow(target: RequestTarget, at: Date): boolean {
  const offset = target.request.receivedAt.getTime() - at.getTime();
  return offset >= -REREAD_EARLY_MS && offset <= REREAD_WITHIN_MS;
}

/** `GET /properties/prp_1 200, 2.3 s after the event` */
function seen(target: RequestTarget, at: Date): string {
  return `${target.method} ${target.shown} ${statusText(target.request)}, ${relativeTo(target.request.receivedAt, at)} the event`;
}

/** A GET of `/properties/<id>` answered 2xx/304 around `property.updated`'s answer. */
export function rereadsNamedResource(
  event: CertificationObservations['propertyUpdated'],
  requests: readonly ObservedRequest[],
): RuleVerdict {
  if (!event) return failed('No property.updated delivery was answered, so no re-read could be judged.');
  const route = `/properties/${event.propertyId}`;
  const ofIt = reads(requests).filter((target) => target.route === route);
  const hit = ofIt.find((target) => readOk(target) && inRereadWindow(target, event.at));
  if (hit) return passed(`${seen(hit, event.at)} (times from when the property.updated delivery was answered).`);
  const asked = `No GET ${route} answered 2xx or 304 from 1 s before to ${REREAD_SECONDS} s after the property.updated delivery was answered (${event.at.toISOString()})`;
  if (ofIt.length === 0) return failed(`${asked}; it was not read at all.`);
  return failed(`${asked}; reads of it: ${listed(ofIt.map((target) => seen(target, event.at)))}.`);
}

/** The nights a read of the property's availability asks for: null bounds are the defaults. */
function rangeOf(target: RequestTarget, propertyId: string): { from: string | null; to: string | null } | null {
  const named =
    target.route === `/properties/${propertyId}/availability` ||
    (target.route === '/availability' && target.query.get('property_id') === propertyId);
  return named ? { from: target.query.get('from') ?? null, to: target.query.get('to') ?? null } : null;
}

/**
 * The first night of [from, to) the ranges leave unread, or `to` when they cover it all. A missing
 * `from` is the property's today and a missing `to` its horizon end: the whole kept window.
 */
export function coveredUntil(
  ranges: readonly { from: string | null; to: string | null }[],
  from: string,
  to: string,
): string {
  const sorted = ranges
    .map((range) => ({ from: range.from ?? '', to: range.to ?? '\uffff' }))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  let reach = from;
  for (const range of sorted) {
    if (reach >= to || range.from > reach) break;
    if (range.to > reach) reach = range.to;
  }
  return reach >= to ? to : reach;
}

/** Reads of the property's availability around `availability.updated`'s answer cover its range. */
export function rereadsAnnouncedRange(
  event: CertificationObservations['availabilityUpdated'],
  requests: readonly ObservedRequest[],
): RuleVerdict {
  if (!event) return failed('No availability.updated delivery was answered, so no re-read could be judged.');
  const announced = `${event.from} to ${event.to} (exclusive)`;
  const ranged = reads(requests).flatMap((target) => {
    const range = readOk(target) && inRereadWindow(target, event.at) ? rangeOf(target, event.propertyId) : null;
    return range ? [{ target, range }] : [];
  });
  const within = `within ${REREAD_SECONDS} s of the availability.updated delivery's answer (${event.at.toISOString()})`;
  if (ranged.length === 0)
    return failed(
      `No read of ${event.propertyId}'s availability answered 2xx or 304 ${within}; announced ${announced}.`,
    );
  const reach = coveredUntil(
    ranged.map((read) => read.range),
    event.from,
    event.to,
  );
  const shown = listed(ranged.map((read) => seen(read.target, event.at)));
  if (reach === event.to) return passed(`Announced ${announced}, covered by: ${shown}.`);
  return failed(`Announced ${announced}; the reads ${within} leave nights from ${reach} unread: ${shown}.`);
}

/** A GET of a catalogue list carrying `parameter` answered 2xx. */
export function readsListWith(
  parameter: 'cursor' | 'updated_since',
  requests: readonly ObservedRequest[],
): RuleVerdict {
  const lists = reads(requests).filter((target) => LIST_ROUTES.includes(target.route) && target.query.has(parameter));
  const hit = lists.find((target) => is2xx(target.request.status));
  const at = (target: RequestTarget) =>
    `${target.method} ${target.route} with ${parameter}= ${statusText(target.request)} at ${target.request.receivedAt.toISOString()}`;
  if (hit) return passed(`${at(hit)}; ${lists.length} such read(s) in the run.`);
  if (lists.length > 0) return failed(`No list read with ${parameter}= answered 2xx: ${listed(lists.map(at))}.`);
  const hint =
    parameter === 'cursor'
      ? ' A loop reads a cursor only when a page has a next one: with a view that fits one page, read with a smaller `limit` during the run.'
      : ' A loop sends it from its second pass on: let it pass at least twice during the run.';
  return failed(
    `No GET of a list (${LIST_ROUTES.join(', ')}) with ${parameter}= among the run's ${requests.length} request(s).${hint}`,
  );
}

/**
 * Nothing below `/properties/<id>` read between the withdrawal's answer and the end of the watch
 * (the run distributes the property again afterwards, and a channel then reads it again, rightly);
 * the tombstone itself may be read.
 */
export function stopsReadingWithdrawn(
  withdrawn: CertificationObservations['withdrawn'],
  requests: readonly ObservedRequest[],
): RuleVerdict {
  if (!withdrawn) return failed('No property.withdrawn delivery was answered, so nothing could be watched.');
  const route = `/properties/${withdrawn.propertyId}`;
  const after = reads(requests).filter((target) => {
    const at = target.request.receivedAt.getTime();
    return at >= withdrawn.at.getTime() && at <= withdrawn.watchedUntil.getTime();
  });
  const below = after.filter(
    (target) => target.route.startsWith(`${route}/`) || rangeOf(target, withdrawn.propertyId) !== null,
  );
  const since = `in the ${relativeTo(withdrawn.watchedUntil, withdrawn.at)} after the property.withdrawn delivery's answer (${withdrawn.at.toISOString()})`;
  if (below.length > 0)
    return failed(
      `${below.length} read(s) of ${route}'s nights or parts ${since}: ${listed(below.map((t) => seen(t, withdrawn.at)))}.`,
    );
  const tombstones = after.filter((target) => target.route === route).length;
  return passed(`No read below ${route} ${since}; ${tombstones} read(s) of ${route} itself, the tombstone.`);
}
