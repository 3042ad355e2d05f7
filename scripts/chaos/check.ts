import type { Arrival } from './receiver.ts';

/** An endpoint as registered: its name (last segment of its URL) and its event patterns. */
export interface RegisteredEndpoint {
  name: string;
  events: string[];
}

/** The contract's patterns, read independently of the service's code: `*`, `<kind>.*` and exact types. */
export function patternMatches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export interface DeliveryFindings {
  /** (endpoint, event) pairs the event log and the endpoints' patterns call for. */
  expected: number;
  /** Expected pairs received at least once. */
  received: number;
  /** Expected pairs never received. */
  lost: number;
  /** Requests beyond the first of a pair (delivery is at least once, so these are allowed). */
  duplicates: number;
  /** Pairs received that were not expected (an event the endpoint did not ask for, or unknown). */
  unexpected: number;
  /** Pairs whose requests did not all carry one `webhook-id` equal to the event's id. */
  idMismatches: number;
  /** `webhook-id`s that named two different events at one endpoint. */
  sharedIds: number;
  /** Requests whose signature did not verify with the endpoint's secret. */
  unverified: number;
  /** A few lost pairs, `endpoint event type`, to start looking from. */
  lostSample: string[];
}

/**
 * Holds what arrived against what should have: every (endpoint, event) expected received at least
 * once, each pair's requests under one `webhook-id` (the event's id, on every retry), no id
 * naming two events at one endpoint, every signature valid.
 */
export function checkDeliveries(
  events: { id: string; type: string }[],
  endpoints: RegisteredEndpoint[],
  arrivals: Arrival[],
): DeliveryFindings {
  const expected = new Map<string, string>();
  for (const endpoint of endpoints) {
    for (const event of events) {
      if (endpoint.events.some((pattern) => patternMatches(pattern, event.type)))
        expected.set(`${endpoint.name} ${event.id}`, `${endpoint.name} ${event.id} ${event.type}`);
    }
  }
  const byPair = new Map<string, Arrival[]>();
  for (const arrival of arrivals) {
    const key = `${arrival.endpoint} ${arrival.eventId}`;
    const list = byPair.get(key) ?? [];
    list.push(arrival);
    byPair.set(key, list);
  }
  const idOwners = new Map<string, Set<string>>();
  for (const arrival of arrivals) {
    const key = `${arrival.endpoint} ${arrival.webhookId}`;
    const owners = idOwners.get(key) ?? new Set<string>();
    owners.add(arrival.eventId);
    idOwners.set(key, owners);
  }
  const lost = [...expected.keys()].filter((key) => !byPair.has(key));
  return {
    expected: expected.size,
    received: expected.size - lost.length,
    lost: lost.length,
    duplicates: [...byPair.values()].reduce((sum, list) => sum + list.length - 1, 0),
    unexpected: [...byPair.keys()].filter((key) => !expected.has(key)).length,
    idMismatches: [...byPair.values()].filter((list) =>
      list.some((a) => a.webhookId !== list[0]!.webhookId || a.webhookId !== a.eventId),
    ).length,
    sharedIds: [...idOwners.values()].filter((owners) => owners.size > 1).length,
    unverified: arrivals.filter((a) => !a.verified).length,
    lostSample: lost.slice(0, 10).map((key) => expected.get(key)!),
  };
}
