import { toInstant } from '../time.ts';

// What a webhook carries, and which channels are sent any.

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
  return JSON.stringify({
    id: event.id,
    type: event.type,
    occurred_at: toInstant(event.occurredAt),
    channel: event.channel,
    data: event.data,
  });
}

/**
 * A channel is sent webhooks while it is active and operators have not suspended its webhooks;
 * otherwise it reads the event log when reinstated.
 */
export function channelReceivesWebhooks(channel: { status: string; webhooksSuspendedAt?: Date | null }): boolean {
  return channel.status === 'active' && !channel.webhooksSuspendedAt;
}
