import { apiKeyActivities } from './api-keys.ts';
import { availabilityActivities } from './availability.ts';
import { catalogueReprojectionActivities } from './catalogue-reprojection.ts';
import { certificateExpiryActivities } from './certificate-expiry.ts';
import { certificationActivities } from './certification.ts';
import { housekeepingActivities } from './housekeeping.ts';
import { ownerConnectActivities } from './owner-connect.ts';
import { ownerConnectKeyActivities } from './owner-connect-keys.ts';
import { sandboxChurnActivities } from './sandbox-churn.ts';
import { webhookActivities } from './webhooks.ts';
import { serviceStores } from '../services/stores/index.ts';
import type { ActivityDeps } from './deps.ts';

export type { ActivityDeps } from './deps.ts';

/** Every activity the worker registers, built around injected dependencies. */
export function createActivities(given: ActivityDeps) {
  // The services reach the database through their ports (services/stores/): here, db/ itself.
  const deps = { ...given, stores: serviceStores(given.orm) };
  return {
    ...apiKeyActivities(deps),
    ...availabilityActivities(deps),
    ...catalogueReprojectionActivities(deps),
    ...certificateExpiryActivities(deps),
    ...certificationActivities(deps),
    ...housekeepingActivities(deps),
    ...ownerConnectActivities(deps),
    ...ownerConnectKeyActivities(deps),
    ...sandboxChurnActivities(deps),
    ...webhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
