import { HOUR_MS, PUBLICATION_LEAD_MS, RETIRED_OVERLAP_MS } from '../domain/owner-connect-keys.ts';
import { describeRetrySpan, describeSchedule } from '../domain/webhooks/retry-schedule.ts';
import type { ApiKeyLifecycleInput } from '../workflows/api-key-lifecycle.ts';
import type { CertificationInput } from '../workflows/certification.ts';
import type { OwnerConnectInput } from '../workflows/owner-connect.ts';
import type { DeliveryInput } from '../workflows/webhook-delivery.ts';
import type { SecretRotationInput } from '../workflows/webhook-secret-rotation.ts';

/**
 * What the Temporal UI shows of a workflow (its start options `staticSummary`, one line, and
 * `staticDetails`, Markdown): what it is about, in words an operator searches for. Written into
 * the start event, so kept short; never a secret (a key, a token, an endpoint's path or query).
 * A run that a workflow continued as new has none: the server (1.32) does not copy it, and the
 * SDK's `continueAsNew` takes no summary; its workflow id still says what it is.
 */
export interface WorkflowSummary {
  staticSummary: string;
  staticDetails: string;
}

export const workflowSummaries = {
  apiKeyLifecycle: (input: ApiKeyLifecycleInput): WorkflowSummary => ({
    staticSummary: `API key ${input.keyId}: ${input.expiresAt ? `expires ${input.expiresAt}` : 'no expiry'}`,
    staticDetails: 'Marks the key expired at its `expires_at`; ends at once when an operator revokes it.',
  }),

  certificateExpiry: (ref: string): WorkflowSummary => ({
    staticSummary: `Legal identifier expiry of property ${ref}`,
    staticDetails:
      "Sleeps until the property's legal identifier lapses (`SvcExpiresOn`), then projects it again; " +
      'a property write plans again. `SvcState`: `waiting`, `lapsed`, `none`, `deleted`.',
  }),

  certificateExpiryCatchUp: (taskQueue: string): WorkflowSummary => ({
    staticSummary: `Certificate-expiry catch-up of task queue ${taskQueue}`,
    staticDetails:
      'Walks the properties by id and starts the certificate-expiry workflow of each one with an end date ' +
      'ahead that has none running; started by each worker start. `svc_certificate_expiry_catch_up_remaining_properties` says what is left.',
  }),

  catalogueReprojection: (revision: string): WorkflowSummary => ({
    staticSummary: `Catalogue re-projection, projection revision ${revision.slice(0, 12)}`,
    staticDetails:
      'Projects every property again for every channel after a deploy that changed what channels are shown; ' +
      'a changed record gets a new version and its event. Paced by its rate (signal `reprojectionRate`); ' +
      '`npm run admin -- catalogue reprojection` says where it stands.',
  }),

  sandboxChurn: (rate: number): WorkflowSummary => ({
    staticSummary: `Sandbox catalogue churn, ${rate} changes a second at the start`,
    staticDetails:
      "Keeps a sandbox's generated catalogue moving through the platform services: prices and availability, " +
      'texts, withdrawals and returns, deletions and creations, a certificate set to lapse. Paced by its rate ' +
      '(signal `sandboxChurnRate`); `npm run admin -- sandbox churn status` reads its memo `progress`. Sandbox only.',
  }),

  certificationRun: (input: CertificationInput): WorkflowSummary => ({
    staticSummary: `Sandbox certification ${input.certificationId} of channel ${input.channel}, endpoint ${input.webhookId}`,
    staticDetails:
      "Probes the channel's receiver, triggers each event type and watches its delivery, provokes a 429, hands off " +
      "an owner-connect token, then judges what it observed and the channel's requests. Its memo `step` says where it " +
      `stands; \`npm run admin -- certification show ${input.certificationId}\` reads the report. Sandbox only.`,
  }),

  eventDispatch: (taskQueue: string, pollSeconds: number): WorkflowSummary => ({
    staticSummary: `Event dispatcher of task queue ${taskQueue}`,
    staticDetails:
      "Turns the channels' committed events into webhook deliveries (`webhookDelivery`, one per endpoint " +
      `and event). Woken by each write, and looks every ${pollSeconds} s; continues as new.`,
  }),

  ownerConnectKeyRotation: (taskQueue: string, rotationDays: number): WorkflowSummary => ({
    staticSummary: `Owner-connect signing key rotation of task queue ${taskQueue}, every ${rotationDays} days`,
    staticDetails:
      `Publishes the next signing key, switches to it ${PUBLICATION_LEAD_MS / HOUR_MS} h later and destroys the retired private part ${RETIRED_OVERLAP_MS / HOUR_MS} h ` +
      'after that; `npm run admin -- owner-connect rotate-key` rotates early. Continues as new.',
  }),

  horizonRoll: (zone: string): WorkflowSummary => ({
    staticSummary: `Availability horizon roll of zone ${zone}`,
    staticDetails: `Rolls the availability horizon of every property in ${zone} at its local midnight; continues as new.`,
  }),

  webhookDelivery: (input: DeliveryInput, host: string): WorkflowSummary => ({
    staticSummary: `${input.eventType} ${input.eventId} → ${host} (channel ${input.channel})`,
    staticDetails: [
      `Delivery \`${input.deliveryId}\` of event \`${input.eventId}\` (${input.eventType}) to endpoint`,
      `\`${input.endpointId}\` at ${host}, channel ${input.channel}.`,
      `Retries after ${describeSchedule('short')}, within ${describeRetrySpan()} of the first attempt;`,
      `\`npm run admin -- delivery retry ${input.deliveryId}\` makes a waiting retry now.`,
    ].join('\n'),
  }),

  webhookSecretRotation: (input: SecretRotationInput, channel: string): WorkflowSummary => ({
    staticSummary: `Secret rotation ${input.generation} of endpoint ${input.endpointId} (channel ${channel})`,
    staticDetails: `The previous signing secret signs beside the new one for ${Math.round(input.overlapMs / 60_000)} minutes, then is destroyed, unless a later rotation replaced it.`,
  }),

  ownerConnect: (input: OwnerConnectInput): WorkflowSummary => ({
    staticSummary: `Owner-connect confirmation window of channel ${input.channel}, until ${input.confirmUntil}`,
    staticDetails: `Binds the token to the first connection a channel confirms (owner \`${input.ownerId}\`), once; expires it at ${input.confirmUntil}.`,
  }),
};
