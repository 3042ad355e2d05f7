import { readFileSync } from 'node:fs';
import { findChannelByName } from '../db/channels.ts';
import { newExternalId } from '../domain/catalogue/ids.ts';
import { STALE_TIMESTAMP_SECONDS, type ProbeAnswer } from '../domain/certification/rules.ts';
import { PING_EVENT_TYPE } from '../domain/events.ts';
import { webhookBody } from '../domain/webhooks/sending.ts';
import { generateWebhookSecret, webhookHeaders } from '../domain/webhooks/signing.ts';
import { webhookSecretBox, webhookSecretContext } from '../infra/secret-box.ts';
import { postWebhook } from '../infra/webhook-http.ts';
import type { ServiceDeps } from './deps.ts';
import { findChannelEndpoint } from './webhooks.ts';

/**
 * A certification run's probes: `webhook.ping`-shaped deliveries the run sends the endpoint under
 * test itself, each with its own `evt_` id, signed wrongly on purpose (a random secret; the
 * endpoint's secret over a timestamp STALE_TIMESTAMP_SECONDS old) or as during a secret rotation
 * (a wrong signature first, the valid one second). Sent only by a run the channel started, with
 * the service's webhook transport: the same URL safety, time limit and no redirects as deliveries.
 */

export const PROBE_KINDS = ['wrong_secret', 'stale_timestamp', 'rotation'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

type Deps = Pick<ServiceDeps, 'orm' | 'stores' | 'clock' | 'secrets' | 'config' | 'log'>;

/** The secrets that sign a probe, and the timestamp it carries (Unix seconds). */
function signing(kind: ProbeKind, secret: string, nowSeconds: number) {
  switch (kind) {
    case 'wrong_secret':
      return { secrets: [generateWebhookSecret()], timestamp: nowSeconds };
    case 'stale_timestamp':
      return { secrets: [secret], timestamp: nowSeconds - STALE_TIMESTAMP_SECONDS };
    case 'rotation':
      return { secrets: [generateWebhookSecret(), secret], timestamp: nowSeconds };
  }
}

let trusted: { file: string; pem: string } | undefined;
/** The extra CA the deployment trusts for webhook targets (read once per file). */
function extraCa(file: string | undefined): string | undefined {
  if (!file) return undefined;
  if (trusted?.file !== file) trusted = { file, pem: readFileSync(file, 'utf8') };
  return trusted.pem;
}

/** Sends one probe to the endpoint and answers how it was answered. */
export async function sendProbe(
  deps: Deps,
  run: { channel: string; webhookId: string },
  kind: ProbeKind,
): Promise<ProbeAnswer> {
  const channel = await findChannelByName(deps.orm.em.fork(), run.channel);
  if (!channel) throw new Error(`the certification run's channel ${run.channel} is gone`);
  const endpoint = await findChannelEndpoint(deps, channel, run.webhookId);
  if (!endpoint.secret) return { eventId: '', status: null, durationMs: 0, error: 'no_secret' };
  const secret = webhookSecretBox(deps.secrets.ring).open(endpoint.secret, webhookSecretContext(endpoint.id));
  const now = deps.clock.now();
  const eventId = newExternalId('event', now.getTime());
  const body = webhookBody({
    id: eventId,
    type: PING_EVENT_TYPE,
    occurredAt: now,
    channel: channel.name,
    data: { object: 'webhook', id: endpoint.id },
  });
  const { secrets, timestamp } = signing(kind, secret, Math.floor(now.getTime() / 1000));
  const headers = await webhookHeaders({ id: eventId, timestamp, body, secrets });
  const ca = extraCa(deps.config.webhooks.caFile);
  const response = await postWebhook(endpoint.url, headers, body, {
    allowLocal: deps.config.webhooks.allowLocal,
    ...(ca ? { ca } : {}),
  });
  deps.log.info('certification probe sent', {
    kind,
    eventId,
    endpointId: endpoint.id,
    statusCode: response.statusCode,
    reason: response.error,
  });
  // A status is the answer; `error` names only what stood in for one (a time-out, a refused connection).
  const error = response.statusCode === null ? response.error : null;
  return { eventId, status: response.statusCode, durationMs: response.durationMs, error };
}
