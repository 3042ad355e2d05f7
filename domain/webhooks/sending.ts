import { toInstant } from '../time.ts';

// What a webhook carries.

export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: Date;
  /** The channel's name. */
  channel: string;
  data: Record<string, unknown>;
}

/** The exact body of a webhook, an event of the log or a ping alike. */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, occurred_at: toInstant(event.occurredAt), channel: event.channel, data: event.data });
}
