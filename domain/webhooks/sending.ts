import type { z } from 'zod';
import type { Event } from '../../api/schemas/events.ts';
import { matchesAnyEventPattern } from '../events.ts';
import { toInstant } from '../time.ts';

// What a webhook carries, and who is sent it: which channels, which of their endpoints.

/** How long a receiver has to answer a delivery, name resolution included (docs/contract.md#limits). */
export const RECEIVER_ANSWER_MS = 10_000;

export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: Date;
  /** The channel's name. */
  channel: string;
  data: StoredEventData;
}

/** An event as a channel reads it, in a webhook and on `GET /events`: the description's `Event` (a type import). */
export type EventRecord = z.output<typeof Event>;

/**
 * An event's `data` as the log stores it: JSON its writers give `EventRecord['data']`'s fields
 * (`LockedChannelLog.append`, db/catalogue/channel-log.ts), read back untyped.
 */
export type StoredEventData = Record<string, unknown>;

/** The exact body of a webhook, an event of the log or a ping alike. */
export function webhookBody(event: WebhookEvent): string {
  const body: Omit<EventRecord, 'data'> & { data: StoredEventData } = {
    id: event.id,
    type: event.type,
    occurred_at: toInstant(event.occurredAt),
    channel: event.channel,
    data: event.data,
  };
  return JSON.stringify(body);
}

/**
 * A channel is sent webhooks while it is active and operators have not suspended its webhooks;
 * otherwise it reads the event log when reinstated.
 */
export function channelReceivesWebhooks(channel: { status: string; webhooksSuspendedAt?: Date | null }): boolean {
  return channel.status === 'active' && !channel.webhooksSuspendedAt;
}

/**
 * An active endpoint of such a channel is sent an event its patterns match, when the event comes
 * after `resumeAfter`, the log's end when the endpoint was registered or last enabled.
 */
export function endpointReceivesEvent(
  endpoint: { events: readonly string[]; resumeAfter: number },
  event: { position: number; type: string },
): boolean {
  return event.position > endpoint.resumeAfter && matchesAnyEventPattern(endpoint.events, event.type);
}
