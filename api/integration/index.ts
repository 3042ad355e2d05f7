import { readFileSync } from 'node:fs';
import { Router, type RequestHandler } from 'express';
import type { IntegrationScope } from '../../domain/integration-tokens.ts';
import type { AppDeps } from '../context.ts';
import { allowOnPage, DOCS_PAGE_POLICY } from '../middleware/security-headers.ts';
import { interfaceRouter } from '../interface-router.ts';
import { CHANGELOG_PATH, DESCRIPTION_PATH } from '../openapi/description-operations.ts';
import { docsInit, docsPage, DOCS_PATH, represent, sendConditional, type Representation } from '../openapi/routes.ts';
import type { Operation } from '../operations.ts';
import { integrationGuards } from './auth.ts';
import { IntegrationError, integrationErrorHandler, integrationNotFound } from './errors.ts';
import { listGuests } from './guests.ts';
import { buildIntegrationDocument, integrationDescriptionOperations, type IntegrationDocument } from './openapi.ts';

export const INTEGRATION_BASE = '/api/v1/integration';

/** Every operation of the integration interface. */
export const integrationOperations = [listGuests] as Operation<unknown, unknown, unknown, IntegrationScope>[];

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

const onlyGet: RequestHandler = (req, res) => {
  res.setHeader('Allow', 'GET, HEAD');
  if (req.method === 'OPTIONS') res.status(204).end();
  else throw new IntegrationError('method_not_allowed');
};

/**
 * The integration interface under INTEGRATION_BASE: its description, changelog and docs page (no
 * token), its operations behind the integration guards, and its own answers for unknown paths and
 * failures, in the interface's error shapes rather than the distribution's problem details.
 */
export function integrationRouter(deps: AppDeps): Router {
  const router = Router({ strict: true });
  let changelog: Representation | undefined;
  const serialized = new Map<string, Representation>();
  router.get(DESCRIPTION_PATH, (req, res) => {
    const origin = req.app.locals.publicOrigin as string;
    if (!serialized.has(origin)) serialized.set(origin, represent(JSON.stringify(integrationDocument(origin))));
    sendConditional(req, res, 'application/json', serialized.get(origin)!);
  });
  router.get(CHANGELOG_PATH, (req, res) => {
    changelog ??= represent(readFileSync(new URL('./CHANGELOG.md', import.meta.url), 'utf8'));
    sendConditional(req, res, 'text/markdown; charset=utf-8', changelog);
  });
  router.all([DESCRIPTION_PATH, CHANGELOG_PATH], onlyGet);
  router.get(DOCS_PATH, (_req, res) => {
    allowOnPage(res, DOCS_PAGE_POLICY);
    res.type('html').send(page);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(init);
  });
  router.use(interfaceRouter(integrationOperations, deps, integrationGuards(deps)));
  router.use(integrationNotFound);
  router.use(integrationErrorHandler(deps.log));
  return router;
}
