import type { ServiceDeps } from '../services/deps.ts';

/** The CLI's commands run on the services' own dependencies (app/admin-context.ts builds them). */
export type AdminContext = ServiceDeps;
