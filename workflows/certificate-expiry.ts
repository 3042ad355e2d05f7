import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ExpiryPlan } from '../activities/certificate-expiry.ts';
import { legalDatesChangedSignal } from './definitions.ts';
import { SA_EXPIRES_ON, SA_STATE } from './search-attributes.ts';

// One property's reads and one re-projection: short, retried for as long as the database is away
// (the re-projection is for the instant the workflow woke at, so a late attempt withdraws the same day).
const { planCertificateExpiry, applyCertificateExpiry } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface CertificateExpiryInput {
  /** Internal id of the property (`certificate-expiry:<property id>`). */
  propertyId: string;
  /** Plans one run makes before it continues as new (tests use fewer). */
  plansPerRun?: number;
}

export const PLANS_PER_RUN = 50;

/** How the workflow ended: the property is gone, or nothing it carries lapses any more. */
export type CertificateExpiryOutcome = 'deleted' | 'lapsed' | 'none';

/**
 * One per property with dated legal identifiers. It reads the committed legal data (never a copy
 * of it), sleeps until the first instant of the local date on which an identifier lapses, and then
 * re-projects the property for that instant: the channels that see it get `property.withdrawn`
 * (or the registration number that takes over). A write to the property or its location signals
 * `legalDatesChanged` and it plans again, so a renewal moves the timer; the write itself brings a
 * withdrawn property back. It ends when nothing lies ahead; the next write that carries a date
 * starts it again. `SvcState` is `waiting`, `lapsed`, `none` or `deleted`; `SvcExpiresOn` the date.
 */
export async function certificateExpiry(input: CertificateExpiryInput): Promise<CertificateExpiryOutcome> {
  const { propertyId, plansPerRun = PLANS_PER_RUN } = input;
  let changed = false;
  setHandler(legalDatesChangedSignal, () => {
    changed = true;
  });
  for (let plans = 0; plans < plansPerRun && !workflowInfo().continueAsNewSuggested; plans += 1) {
    // Cleared before reading: a write that commits while the plan is read signals after it, and
    // that signal makes the plan be read again.
    changed = false;
    const plan = await planCertificateExpiry(propertyId, Date.now());
    show(plan);
    if (plan.state !== 'waiting') {
      if (changed) continue;
      return plan.state;
    }
    const wait = plan.change.at - Date.now();
    if (wait > 0 && (await condition(() => changed, wait))) continue;
    await applyCertificateExpiry(propertyId, Math.max(Date.now(), plan.change.at));
  }
  return continueAsNew<typeof certificateExpiry>(input);
}

function show(plan: ExpiryPlan): void {
  const current = workflowInfo().typedSearchAttributes;
  const expiresOn = plan.state === 'waiting' ? plan.change.on : null;
  if (current.get(SA_STATE) === plan.state && (current.get(SA_EXPIRES_ON) ?? null) === expiresOn) return;
  upsertSearchAttributes([
    { key: SA_STATE, value: plan.state },
    { key: SA_EXPIRES_ON, value: expiresOn },
  ]);
}
