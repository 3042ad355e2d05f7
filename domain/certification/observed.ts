/**
 * Small readers of what a certification run observed: the route and query of a logged request, and
 * the words evidence uses for statuses, times and lists. Pure.
 */
import type { ObservedRequest, RuleVerdict } from './rules.ts';

/** The interface's base in a logged path (`/api/v1/distribution`), dropped before matching routes. */
const INTERFACE_BASE = /^\/api\/v\d+\/distribution(?=[/?]|$)/;
/** Items an evidence list names before it says how many more there were. */
const LISTED_AT_MOST = 5;

/** The lists of the catalogue a sync loop pages through and resumes. */
export const LIST_ROUTES: readonly string[] = ['/properties', '/locations', '/owners', '/amenities'];

/** A logged request read for matching: its route (no base, no query, no trailing `/`) and query. */
export interface RequestTarget {
  request: ObservedRequest;
  method: string;
  route: string;
  /** The path as logged, without the interface's base: route and query. */
  shown: string;
  query: ReadonlyMap<string, string>;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The query's parameters; a repeated one keeps its first value. */
function queryOf(text: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = decoded(equals === -1 ? part : part.slice(0, equals));
    if (!query.has(name)) query.set(name, equals === -1 ? '' : decoded(part.slice(equals + 1)));
  }
  return query;
}

export function targetOf(request: ObservedRequest): RequestTarget {
  const shown = request.path.replace(INTERFACE_BASE, '');
  const mark = shown.indexOf('?');
  const bare = mark === -1 ? shown : shown.slice(0, mark);
  const route = bare.length > 1 ? bare.replace(/\/+$/, '') : bare;
  const query = queryOf(mark === -1 ? '' : shown.slice(mark + 1));
  return { request, method: request.method.toUpperCase(), route: route || '/', shown, query };
}

export function isSandboxRoute(route: string): boolean {
  return route === '/sandbox' || route.startsWith('/sandbox/');
}

export function is2xx(status: number | null): boolean {
  return status !== null && status >= 200 && status <= 299;
}

/** `200`, or `429 rate_limited` when the answer named a problem code. */
export function statusText(request: ObservedRequest): string {
  return request.code ? `${request.status} ${request.code}` : String(request.status);
}

/** `2.3 s after` or `0.4 s before`, one decimal. */
export function relativeTo(at: Date, reference: Date): string {
  const ms = at.getTime() - reference.getTime();
  return `${(Math.abs(ms) / 1000).toFixed(1)} s ${ms < 0 ? 'before' : 'after'}`;
}

/** `a; b; c`, or the first few and `and N more`. */
export function listed(items: readonly string[]): string {
  if (items.length <= LISTED_AT_MOST) return items.join('; ');
  return `${items.slice(0, LISTED_AT_MOST).join('; ')}; and ${items.length - LISTED_AT_MOST} more`;
}

export function passed(evidence: string): RuleVerdict {
  return { outcome: 'passed', evidence };
}

export function failed(evidence: string): RuleVerdict {
  return { outcome: 'failed', evidence };
}
