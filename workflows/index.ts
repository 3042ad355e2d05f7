export { apiKeyLifecycle } from './api-key-lifecycle.ts';
export { certificateExpiry } from './certificate-expiry.ts';
export { eventDispatch } from './event-dispatch.ts';
export { horizonRoll } from './horizon-roll.ts';
export { ownerConnectKeyRotation } from './owner-connect-key-rotation.ts';
export { webhookDelivery } from './webhook-delivery.ts';
export { webhookSecretRotation } from './webhook-secret-rotation.ts';
export { ownerConnect } from './owner-connect.ts';
