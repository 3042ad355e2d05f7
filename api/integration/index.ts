import { Router } from 'express';
import type { AppDeps } from '../context.ts';
import { interfaceRouter } from '../interface-router.ts';
import { docsInit, docsPage, DOCS_PATH, mountDescription, perOrigin } from '../openapi/routes.ts';
import { integrationGuards } from './auth.ts';
import { IntegrationError, integrationErrorHandler, integrationNotFound } from './errors.ts';
import { listGuests } from './guests.ts';
import { buildIntegrationDocument, integrationDescriptionOperations, type IntegrationDocument } from './openapi.ts';

export const INTEGRATION_BASE = '/api/v1/integration';

/** Every operation of the integration interface. */
export const integrationOperations = [listGuests];

/** Everything its description lists: the registry, and the description's own two addresses. */
export const describedIntegrationOperations = [...integrationOperations, ...integrationDescriptionOperations];

const documents = new Map<string, IntegrationDocument>();

/** Built once per public origin: the registry does not change while the process runs. */
export function integrationDocument(publicOrigin: string): IntegrationDocument {
  let document = documents.get(publicOrigin);
  if (!document) {
    document = buildIntegrationDocument(describedIntegrationOperations, publicOrigin, INTEGRATION_BASE);
    documents.set(publicOrigin, document);
  }
  return document;
}

const page = docsPage('Integration interface v1', INTEGRATION_BASE, `${INTEGRATION_BASE}${DOCS_PATH}/init.js`);
const init = docsInit(INTEGRATION_BASE);

/**
 * The integration interface under INTEGRATION_BASE: its description, changelog and docs page (no
 * token), its operations behind the integration guards, and its own answers for unknown paths and
 * failures, in the interface's error shapes rather than the distribution's problem details.
 */
export function integrationRouter(deps: AppDeps): Router {
  const router = Router({ strict: true });
  mountDescription(router, {
    prefix: '',
    description: perOrigin(integrationDocument),
    changelog: new URL('./CHANGELOG.md', import.meta.url),
    page,
    init,
    // The renderer comes from the distribution's `/docs` on the same listener.
    serveRenderer: false,
    refuse: () => {
      throw new IntegrationError('method_not_allowed');
    },
  });
  router.use(interfaceRouter(integrationOperations, deps, integrationGuards(deps)));
  router.use(integrationNotFound);
  router.use(integrationErrorHandler(deps.log));
  return router;
}
