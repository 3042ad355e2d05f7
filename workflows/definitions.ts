import { defineSignal } from '@temporalio/workflow';

/** Sent when an operator revokes a key: its lifecycle ends without marking it expired. */
export const apiKeyRevokedSignal = defineSignal('apiKeyRevoked');
