import type { certificateExpiry } from '../workflows/certificate-expiry.ts';
import type {
  certificateExpiryCatchUp,
  CertificateExpiryCatchUpInput,
} from '../workflows/certificate-expiry-catch-up.ts';
import { legalDatesChangedSignal } from '../workflows/definitions.ts';
import { workflowIds } from '../workflows/ids.ts';
import { SA_PROPERTY } from '../workflows/search-attributes.ts';
import { workflowSummaries as summary } from './workflow-summaries.ts';
import { ignoreNotFound, workflowName as name, type WorkflowScope } from './workflow-scope.ts';

// The certificate-expiry workflows (one per property) and their catch-up, as the workflow client
// starts and signals them (services/workflow-client.ts).

export function certificateExpiryClient({ connect, taskQueue }: WorkflowScope) {
  return {
    /**
     * Arms a property's certificate-expiry workflow (`certificate-expiry:<property id>`): tells the
     * running one to plan again, or starts one (a new run after one that ended).
     */
    async armCertificateExpiry(propertyId: string, ref: string): Promise<void> {
      const client = await connect();
      await client.workflow.signalWithStart<typeof certificateExpiry, []>(name('certificateExpiry'), {
        workflowId: workflowIds.certificateExpiry(propertyId),
        taskQueue,
        args: [{ propertyId }],
        signal: legalDatesChangedSignal,
        signalArgs: [],
        typedSearchAttributes: [{ key: SA_PROPERTY, value: ref }],
        ...summary.certificateExpiry(ref),
      });
    },

    /**
     * Starts the certificate-expiry workflow of each property that has none running
     * (`USE_EXISTING`), `concurrency` starts at a time; `started` is called after each. An aborted
     * `signal`, or a start that failed, stops it before its next start.
     */
    async ensureCertificateExpiries(
      properties: readonly { id: string; ref: string }[],
      options: { concurrency?: number; started?: () => void; signal?: AbortSignal } = {},
    ): Promise<void> {
      const client = await connect();
      let next = 0;
      let failed = false;
      const startNext = async (): Promise<void> => {
        for (let property = properties[next++]; property && !failed; property = properties[next++]) {
          options.signal?.throwIfAborted();
          await client.workflow.start<typeof certificateExpiry>(name('certificateExpiry'), {
            workflowId: workflowIds.certificateExpiry(property.id),
            taskQueue,
            args: [{ propertyId: property.id }],
            workflowIdConflictPolicy: 'USE_EXISTING',
            typedSearchAttributes: [{ key: SA_PROPERTY, value: property.ref }],
            ...summary.certificateExpiry(property.ref),
          });
          options.started?.();
        }
      };
      // One start failing stops the others before their next.
      const starting = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, () =>
        startNext().catch((error: unknown) => {
          failed = true;
          throw error;
        }),
      );
      await Promise.all(starting);
    },

    /**
     * Starts this task queue's certificate-expiry catch-up (`certificate-expiry-catch-up:<task
     * queue>`), a new pass unless one is under way (`USE_EXISTING`). Returns once Temporal has it.
     */
    async startCertificateExpiryCatchUp(input: CertificateExpiryCatchUpInput = {}): Promise<void> {
      const client = await connect();
      await client.workflow.start<typeof certificateExpiryCatchUp>(name('certificateExpiryCatchUp'), {
        workflowId: workflowIds.certificateExpiryCatchUp(taskQueue),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        ...summary.certificateExpiryCatchUp(taskQueue),
      });
    },

    /** Tells the running certificate-expiry workflows of these properties to plan again; starts none. */
    async rearmCertificateExpiries(propertyIds: readonly string[]): Promise<void> {
      const client = await connect();
      for (const id of propertyIds)
        await ignoreNotFound(
          client.workflow.getHandle(workflowIds.certificateExpiry(id)).signal(legalDatesChangedSignal),
        );
    },
  };
}
