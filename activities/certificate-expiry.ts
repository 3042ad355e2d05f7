import { asyncLocalStorage } from '@temporalio/activity';
import * as catchUp from '../services/certificate-expiry-catch-up.ts';
import * as expiry from '../services/certificate-expiry.ts';
import type { ActivityDeps } from './deps.ts';

export type { ExpiryPlan } from '../services/certificate-expiry.ts';
export type { CatchUpBatch, CatchUpStep } from '../services/certificate-expiry-catch-up.ts';

export function certificateExpiryActivities(deps: ActivityDeps) {
  const { log } = deps;
  return {
    /** The property's next legal change after `nowMs` (the workflow's time), from what is committed. */
    async planCertificateExpiry(propertyId: string, nowMs: number): Promise<expiry.ExpiryPlan> {
      return expiry.planCertificateExpiry(deps, propertyId, new Date(nowMs));
    },

    /**
     * Re-projects the property for `nowMs`, the instant its workflow woke for, not the worker's
     * clock: a late, retried or replayed attempt applies the same local date, and a test server
     * that skips time applies the date its workflow is at. Idempotent: an unchanged view writes nothing.
     */
    async applyCertificateExpiry(propertyId: string, nowMs: number): Promise<{ before: string[]; after: string[] }> {
      const result = await expiry.applyCertificateExpiry(deps, propertyId, new Date(nowMs));
      const withdrawnFrom = result.before.filter((name) => !result.after.includes(name));
      if (withdrawnFrom.length > 0)
        log.info('property withdrawn: a legal identifier lapsed', { propertyId, channels: withdrawnFrom });
      return result;
    },

    /** A pass of the certificate-expiry catch-up begins: the properties it will visit. */
    async beginCertificateExpiryCatchUp(): Promise<number> {
      return catchUp.beginCertificateExpiryCatchUp(deps);
    },

    /**
     * One batch of the catch-up. It heartbeats after each workflow it starts, and stops when
     * Temporal cancels it (its heartbeat timed out: the batch is already running elsewhere).
     */
    async catchUpCertificateExpiries(step: catchUp.CatchUpStep): Promise<catchUp.CatchUpBatch> {
      const context = asyncLocalStorage.getStore();
      const batch = await catchUp.catchUpCertificateExpiries(deps, step, {
        ...(context ? { started: () => context.heartbeat(), signal: context.cancellationSignal } : {}),
      });
      if (batch.last === null)
        log.info('certificate-expiry catch-up finished', { visited: step.visited + batch.visited });
      return batch;
    },
  };
}
