import * as expiry from '../services/certificate-expiry.ts';
import type { ActivityDeps } from './deps.ts';

export type { ExpiryPlan } from '../services/certificate-expiry.ts';

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
  };
}
