/** Deterministic workflow ids: one process per subject, found again by the same id. */
export const workflowIds = {
  apiKeyLifecycle: (keyId: string) => `api-key:${keyId}`,
  /** One per task queue, so deployments (and test runs) sharing a namespace do not share a dispatcher. */
  eventDispatch: (taskQueue: string) => `event-dispatch:${taskQueue}`,
  /** One per IANA zone in use: the zone's daily roll of the availability horizon at its local midnight. */
  /** One per (task queue, zone), so deployments and test runs sharing a namespace roll apart. */
  horizonRoll: (taskQueue: string, zone: string) => `horizon-roll:${taskQueue}:${zone}`,
  /** One per property (internal id, never reused): waits for its next legal identifier to lapse. */
  certificateExpiry: (propertyId: string) => `certificate-expiry:${propertyId}`,
  /** One per task queue: the worker start's pass that starts the certificate-expiry workflows missing. */
  certificateExpiryCatchUp: (taskQueue: string) => `certificate-expiry-catch-up:${taskQueue}`,
  /** One per (task queue, projection revision): the re-projection of the catalogue after a deploy. */
  catalogueReprojection: (taskQueue: string, revision: string) =>
    `catalogue-reprojection:${taskQueue}:${revision.slice(0, 12)}`,
  /** One per task queue: the sandbox catalogue's churn (sandbox deployments only). */
  sandboxChurn: (taskQueue: string) => `sandbox-churn:${taskQueue}`,
  /** One per sandbox certification run (`crt_…`, a ULID never reused). */
  certificationRun: (certificationId: string) => `certification-${certificationId}`,
  /** One per (endpoint, event): a replayed dispatch starts nothing twice. */
  webhookDelivery: (endpointId: string, eventId: string) => `webhook-delivery:${endpointId}:${eventId}`,
  /** One per owner-connect token (its `jti`, 128 random bits): the confirmation window and the single-use rule. */
  ownerConnect: (jti: string) => `owner-connect:${jti}`,
  /** One per task queue (a deployment): the rotation of the owner-connect token signing keys. */
  ownerConnectKeys: (taskQueue: string) => `owner-connect-keys:${taskQueue}`,
  /** One per task queue: the housekeeping schedule, and the id (with the start's time) of each pass it starts. */
  housekeeping: (taskQueue: string) => `housekeeping:${taskQueue}`,
  webhookSecretRotation: (endpointId: string, generation: number) =>
    `webhook-secret-rotation:${endpointId}:${generation}`,
};
