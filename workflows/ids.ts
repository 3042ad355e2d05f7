/** Deterministic workflow ids: one process per subject, found again by the same id. */
export const workflowIds = {
  apiKeyLifecycle: (keyId: string) => `api-key:${keyId}`,
};
