import type { ApiKey } from '../db/api-keys.ts';
import type { Channel } from '../db/channels.ts';
import type { StoredEndpoint } from '../db/webhook-endpoints.ts';
import type { PendingDeliveries } from '../db/webhook-deliveries.ts';
import { isExternalId, newExternalId } from '../domain/catalogue/ids.ts';
import { PING_EVENT_TYPE, scopesForPatterns } from '../domain/events.ts';
import { ProblemError } from '../domain/problems.ts';
import type { DeliveryError } from '../domain/webhooks/delivery-errors.ts';
import { outcomeOf } from '../domain/webhooks/deliveries.ts';
import { previousSecretExpiry, registrationRefusal, SECRET_OVERLAP_MS } from '../domain/webhooks/endpoints.ts';
import { missingScopes } from '../domain/scopes.ts';
import { webhookBody } from '../domain/webhooks/sending.ts';
import { generateWebhookSecret } from '../domain/webhooks/signing.ts';
import { webhookSecretBox, webhookSecretContext } from '../infra/secret-box.ts';
import type { ServiceDeps } from './deps.ts';
import type { EndpointOperations, EndpointStore } from './stores/webhooks.ts';

/** The endpoints' port (services/stores/webhooks.ts), and nothing else of the database. */
type Stores = { stores: { endpoints: EndpointStore } };
type SenderDeps = Pick<ServiceDeps, 'pingSender' | 'clock' | 'log'>;

function sealSecret(deps: Pick<ServiceDeps, 'secrets'>, endpointId: string, secret: string): string {
  return webhookSecretBox(deps.secrets.ring).seal(secret, webhookSecretContext(endpointId));
}

function refuseIfSuspended(channel: Channel): void {
  if (channel.webhooksSuspendedAt) throw new ProblemError('webhooks_suspended_by_platform');
}

/** A live endpoint of the channel; any other id, well-formed or not, is `not_found`. */
export async function findChannelEndpoint(deps: Stores, channel: Channel, id: string): Promise<StoredEndpoint> {
  const found = isExternalId('webhook', id) ? await deps.stores.endpoints.findEndpoint(channel.id, id) : null;
  if (!found) throw new ProblemError('not_found');
  return found;
}

export async function listChannelEndpoints(deps: Stores, channel: Channel): Promise<StoredEndpoint[]> {
  return deps.stores.endpoints.listEndpoints(channel.id);
}

export interface NewEndpointInput {
  /** Checked and normalised by the caller. */
  url: string;
  /** Valid patterns, each once. */
  events: readonly string[];
  description: string | null;
}

/**
 * Registers an endpoint with a fresh secret, answered once in plain. It is sent only the events
 * after the end of the channel's log at registration; a channel's first endpoint starts the
 * channel's dispatch there.
 */
export async function createEndpoint(
  deps: Stores & Pick<ServiceDeps, 'clock' | 'secrets'>,
  caller: { channel: Channel; key: Pick<ApiKey, 'scopes'> },
  input: NewEndpointInput,
): Promise<{ endpoint: StoredEndpoint; secret: string }> {
  const { channel } = caller;
  refuseIfSuspended(channel);
  const missing = missingScopes(caller.key.scopes, scopesForPatterns(input.events));
  if (missing.length > 0)
    throw new ProblemError('insufficient_scope', {
      required_scopes: missing,
      detail: 'The key does not cover every subscribed event type',
    });
  const secret = generateWebhookSecret();
  const id = newExternalId('webhook', deps.clock.now().getTime());
  const now = deps.clock.now();
  const endpoint = await deps.stores.endpoints.transaction(async (tx) => {
    await tx.lockChannelEndpoints(channel.id);
    const existing = await tx.listEndpoints(channel.id);
    const refusal = registrationRefusal(
      existing.map((endpoint) => endpoint.url),
      input.url,
    );
    if (refusal) throw new ProblemError(refusal);
    await tx.insertEndpoint({
      id,
      channelId: channel.id,
      url: input.url,
      events: input.events,
      description: input.description,
      sealedSecret: sealSecret(deps, id, secret),
      now,
    });
    await tx.startDispatch(channel.id);
    return (await tx.findEndpoint(channel.id, id))!;
  });
  return { endpoint, secret };
}

/** Deletes the endpoint with its secrets, and cancels its pending deliveries. */
export async function deleteEndpoint(
  deps: Stores & Pick<ServiceDeps, 'workflows' | 'clock'>,
  channel: Channel,
  id: string,
): Promise<void> {
  const endpoint = await findChannelEndpoint(deps, channel, id);
  await cancelPendingDeliveries(deps, { endpointId: endpoint.id }, (tx) =>
    tx.markEndpointDeleted(endpoint.id, deps.clock.now()),
  );
}

export interface PingOutcome {
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  error: DeliveryError | null;
  /** The `webhook-id` of the ping. */
  eventId: string;
}

/** Pings a channel may have in flight at once in one API process (a ping can take its whole 10 s). */
export const MAX_PINGS_IN_FLIGHT = 2;
/** The ping's time limit, in seconds: by then one of the pings in flight has ended. */
const PING_RETRY_AFTER_S = 10;
const pingsInFlight = new Map<string, number>();

/**
 * A signed `webhook.ping` to one endpoint, whatever its status; not in the event log. A channel
 * beyond MAX_PINGS_IN_FLIGHT is refused at once (429 `rate_limited`), not queued: each ping may
 * hold a connection and a name resolution for 10 s, and one channel must not pile them up.
 */
async function ping(deps: SenderDeps, channel: Channel, endpoint: StoredEndpoint): Promise<PingOutcome> {
  const inFlight = pingsInFlight.get(channel.id) ?? 0;
  if (inFlight >= MAX_PINGS_IN_FLIGHT) {
    throw new ProblemError('rate_limited', {
      detail: `At most ${MAX_PINGS_IN_FLIGHT} pings of a channel are sent at once`,
      headers: { 'Retry-After': String(PING_RETRY_AFTER_S) },
    });
  }
  pingsInFlight.set(channel.id, inFlight + 1);
  try {
    const eventId = newExternalId('event', deps.clock.now().getTime());
    const body = webhookBody({
      id: eventId,
      type: PING_EVENT_TYPE,
      occurredAt: deps.clock.now(),
      channel: channel.name,
      data: { object: 'webhook', id: endpoint.id },
    });
    const response = await deps.pingSender.send(endpoint, { id: eventId, body });
    if (response.error !== null)
      deps.log.info('webhook ping failed', {
        eventId,
        endpointId: endpoint.id,
        reason: response.error,
        statusCode: response.statusCode,
        detail: response.detail,
      });
    return {
      delivered: outcomeOf(response) === 'delivered',
      statusCode: response.statusCode,
      durationMs: response.durationMs,
      error: response.error,
      eventId,
    };
  } finally {
    const left = (pingsInFlight.get(channel.id) ?? 1) - 1;
    if (left > 0) pingsInFlight.set(channel.id, left);
    else pingsInFlight.delete(channel.id);
  }
}

export async function pingEndpoint(deps: SenderDeps & Stores, channel: Channel, id: string): Promise<PingOutcome> {
  return ping(deps, channel, await findChannelEndpoint(deps, channel, id));
}

/**
 * Makes an inactive endpoint active again after a ping it accepts. It resumes at the end of the
 * log: what happened while it was inactive is not replayed. An active endpoint is answered as it is.
 */
export async function enableEndpoint(deps: SenderDeps & Stores, channel: Channel, id: string): Promise<StoredEndpoint> {
  const endpoint = await findChannelEndpoint(deps, channel, id);
  refuseIfSuspended(channel);
  if (endpoint.status === 'active') return endpoint;
  const outcome = await ping(deps, channel, endpoint);
  if (!outcome.delivered)
    throw new ProblemError('webhook_endpoint_still_failing', {
      detail: `The ping was not accepted: ${outcome.error ?? 'no answer'}`,
    });
  return deps.stores.endpoints.transaction(async (tx) => {
    // The endpoint's own resume point moves; the channel's dispatch, which its other endpoints share, does not.
    await tx.reactivateEndpoint(channel.id, endpoint.id, deps.clock.now());
    return (await tx.findEndpoint(channel.id, endpoint.id))!;
  });
}

/**
 * Issues a new secret, answered once in plain. The previous one keeps signing for
 * SECRET_OVERLAP_MS, until a workflow destroys it, unless `expireImmediately`. The workflow is
 * started inside the transaction, before the commit: when it cannot be started nothing commits,
 * so no secret is installed that nobody was shown. A workflow started for a commit that then
 * fails destroys nothing (it names a generation that never existed, or is replaced by the next start).
 */
export async function rotateEndpointSecret(
  deps: Stores & Pick<ServiceDeps, 'workflows' | 'clock' | 'secrets'>,
  channel: Channel,
  id: string,
  options: { expireImmediately: boolean },
): Promise<{ endpoint: StoredEndpoint; secret: string }> {
  const secret = generateWebhookSecret();
  const now = deps.clock.now();
  const endpoint = await deps.stores.endpoints.transaction(async (tx) => {
    const current = await tx.findEndpoint(channel.id, id, { lock: true });
    if (!current) throw new ProblemError('not_found');
    const previousExpiresAt = previousSecretExpiry({
      hadSecret: current.secret !== null,
      expireImmediately: options.expireImmediately,
      now,
    });
    await tx.replaceSecret(
      current.id,
      {
        sealed: sealSecret(deps, current.id, secret),
        previous: previousExpiresAt ? current.secret : null,
        previousExpiresAt,
      },
      now,
    );
    const rotated = (await tx.findEndpoint(channel.id, current.id))!;
    if (rotated.previousSecret !== null) {
      await deps.workflows.startSecretRotation(
        { endpointId: rotated.id, generation: rotated.secretGeneration, overlapMs: SECRET_OVERLAP_MS },
        channel.name,
      );
    }
    return rotated;
  });
  return { endpoint, secret };
}

/**
 * Cancels pending deliveries and their workflows. `alongside` runs in the same transaction as the
 * cancellation (an endpoint's deletion); the workflows are cancelled once it has committed.
 */
export async function cancelPendingDeliveries(
  deps: Stores & Pick<ServiceDeps, 'workflows' | 'clock'>,
  pending: PendingDeliveries,
  alongside?: (tx: EndpointOperations) => Promise<void>,
): Promise<number> {
  const cancelled = await deps.stores.endpoints.transaction(async (tx) => {
    await alongside?.(tx);
    return tx.cancelPendingDeliveryRows(pending, deps.clock.now());
  });
  await deps.workflows.cancelWebhookDeliveries(cancelled);
  return cancelled.length;
}

/**
 * Operators stop (or allow again) a channel's webhooks without suspending the channel itself;
 * stopping cancels every pending delivery. Null when no channel has that name.
 */
export async function setChannelWebhooksSuspended(
  deps: Stores & Pick<ServiceDeps, 'workflows' | 'clock'>,
  name: string,
  suspended: boolean,
): Promise<Channel | null> {
  const channel = await deps.stores.endpoints.changeChannel(name, {
    webhooksSuspendedAt: suspended ? deps.clock.now() : null,
  });
  if (!channel) return null;
  if (suspended) await cancelPendingDeliveries(deps, { channelId: channel.id });
  return channel;
}
