import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Clock } from '../domain/clock.ts';
import { outcomeOf } from '../domain/webhooks/deliveries.ts';
import { previousSecretLive } from '../domain/webhooks/endpoints.ts';
import { webhookHeaders, type HmacSha256 } from '../domain/webhooks/signing.ts';
import type { StoredEndpoint } from '../db/webhook-endpoints.ts';
import { webhookAttemptDuration, webhookAttempts } from './metrics.ts';
import { webhookSecretBox, webhookSecretContext, type SecretBox } from './secret-box.ts';
import type { ServiceSecrets } from './secrets.ts';
import { inOwnTrace } from './tracing.ts';
import { postWebhook, type WebhookResponse } from './webhook-http.ts';

/** Node's HMAC: synchronous, no key object or crypto job per signature (Web Crypto's cost a delivery ~1 ms). */
export const nodeHmac: HmacSha256 = (key, content) => createHmac('sha256', key).update(content).digest();

export interface WebhookSettings {
  allowLocal: boolean;
  caFile: string | undefined;
  /** Name servers asked instead of the system's (tests). */
  dnsServers?: readonly string[];
}

export interface WebhookSender {
  /** Signs the body with every live secret of the endpoint and POSTs it once. */
  send(endpoint: StoredEndpoint, event: { id: string; body: string }): Promise<WebhookResponse>;
}

/**
 * The secrets that sign now: the current one, and the previous one until it expires. Order: the
 * current first.
 */
function liveSecrets(endpoint: StoredEndpoint, box: SecretBox, now: Date): string[] {
  const context = webhookSecretContext(endpoint.id);
  const secrets = endpoint.secret ? [box.open(endpoint.secret, context)] : [];
  if (previousSecretLive(endpoint, now)) secrets.push(box.open(endpoint.previousSecret!, context));
  return secrets;
}

/**
 * Counts every POST by outcome and reason and times it: the one place every delivery attempt and
 * ping passes. `kind` labels it: `delivery` (the worker's attempts, the default) or `ping`.
 */
export function createWebhookSender(deps: {
  secrets: ServiceSecrets;
  clock: Clock;
  settings: WebhookSettings;
  kind?: 'delivery' | 'ping';
}): WebhookSender {
  const sender = unmeasuredSender(deps);
  const kind = deps.kind ?? 'delivery';
  return {
    async send(endpoint, event) {
      const response = await sender.send(endpoint, event);
      const outcome = outcomeOf(response);
      webhookAttempts.inc({ kind, outcome, reason: response.error ?? 'none' });
      webhookAttemptDuration.observe({ kind, outcome }, response.durationMs / 1000);
      return response;
    },
  };
}

function unmeasuredSender(deps: { secrets: ServiceSecrets; clock: Clock; settings: WebhookSettings }): WebhookSender {
  const box = webhookSecretBox(deps.secrets.ring);
  const ca = deps.settings.caFile ? readFileSync(deps.settings.caFile, 'utf8') : undefined;
  return {
    async send(endpoint, event) {
      const now = deps.clock.now();
      const secrets = liveSecrets(endpoint, box, now);
      if (secrets.length === 0)
        return {
          statusCode: null,
          durationMs: 0,
          error: 'no_secret',
          detail: 'the endpoint has no signing secret',
          excerpt: null,
        };
      const headers = await webhookHeaders(
        {
          id: event.id,
          timestamp: Math.floor(now.getTime() / 1000),
          body: event.body,
          secrets,
        },
        nodeHmac,
      );
      // With tracing on, the receiver may join a trace: `traceparent` names the POST's own span,
      // the root of a trace of its own (infra/tracing.ts `inOwnTrace`), never the write's.
      return inOwnTrace(
        'webhook POST',
        { 'webhook.endpoint_id': endpoint.id, 'webhook.event_id': event.id },
        (trace) =>
          postWebhook(endpoint.url, { ...headers, ...trace }, event.body, {
            allowLocal: deps.settings.allowLocal,
            ...(ca ? { ca } : {}),
            ...(deps.settings.dnsServers ? { dnsServers: deps.settings.dnsServers } : {}),
          }),
        (response) => ({
          attributes: {
            ...(response.statusCode !== null ? { 'http.response.status_code': response.statusCode } : {}),
            ...(response.error !== null ? { 'error.type': response.error } : {}),
          },
          failed: response.error !== null,
        }),
      );
    },
  };
}
