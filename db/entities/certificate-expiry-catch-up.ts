import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Where the certificate-expiry catch-up of a task queue stands (services/certificate-expiry-catch-up.ts):
 * properties its pass under way has still to visit (0 once it finished), when that pass began, and
 * when a pass last finished. Read by the worker's metrics on scrape; the pass's cursor itself lives
 * in its workflow.
 */
export const CertificateExpiryCatchUpSchema = defineEntity({
  name: 'CertificateExpiryCatchUp',
  tableName: 'certificate_expiry_catch_up',
  properties: {
    taskQueue: p.string().length(255).primary(),
    remaining: p.integer(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});

export type CertificateExpiryCatchUp = InferEntity<typeof CertificateExpiryCatchUpSchema>;
