import express, { type Router } from 'express';
import { describeFailure } from './api-fetch.ts';
import type { Work } from './work-queue.ts';
import { isVisible, verifyWebhook, WebhookVerificationError, type ChannelSync, type WebhookEvent } from './kit.ts';

/**
 * The webhook receiver (docs/contract.md#receiving-webhooks, rules 1 to 6): verify the raw body
 * before anything else, answer 204 at once, then do the work: deduplicate on the event's id and let
 * the kit's sync helper read what the event names, applying it only at a higher version. The
 * nights of a property held withdrawn or deleted are not read: it is no longer distributed to
 * this channel (a late or repeated `availability.updated`), and its next `property.distributed`
 * brings it back first.
 * Locally the service cannot deliver here (webhooks go to public HTTPS addresses only):
 * `channel-kit listen` forwards the event log to it, signed with the same secret.
 */
export function webhookReceiver(options: {
  /** The kit's sync helper, whose store the periodic sync (sync-loop.ts) shares. */
  sync: ChannelSync;
  /** The endpoint's secret(s): the current one, and the previous one during a rotation. */
  secrets: string[];
  /** The app's work queue (work-queue.ts): each event's reads wait their turn there. */
  work: Work;
  log: (line: string) => void;
}): { router: Router } {
  const { sync } = options;
  const seen = new Set<string>();
  const router = express.Router();

  router.post('/webhooks', express.raw({ type: 'application/json', limit: '256kb' }), (req, res) => {
    let event;
    try {
      event = verifyWebhook(Buffer.isBuffer(req.body) ? req.body : '', req.headers, options.secrets);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      options.log(`webhook refused: ${error.reason}`);
      return void res.sendStatus(400);
    }
    res.sendStatus(204);
    // The work, after the answer. A real channel queues it durably and keeps `seen` in its database.
    if (seen.has(event.id)) return void options.log(`webhook ${event.id} again: already handled`);
    seen.add(event.id);
    options.log(`webhook verified: ${event.type} ${event.id}`);
    options
      .work(() => handle(sync, event))
      .then(
        (outcome) => options.log(`webhook ${event.id}: ${outcome}`),
        (error: unknown) => {
          // Not handled: forget it, so that a retry of the same event is worked again.
          seen.delete(event.id);
          options.log(`webhook ${event.id} failed: ${describeFailure(error)}`);
        },
      );
  });
  return { router };
}

/** What the event names, read; the nights of a property this channel holds as taken down, not. */
async function handle(sync: ChannelSync, event: WebhookEvent): Promise<string> {
  if (event.type === 'availability.updated') {
    const held = await sync.store.get('properties', event.data.id);
    if (held && !isVisible(held)) return `ignored: property ${held.id} is ${held.status}`;
  }
  return sync.handleEvent(event);
}
