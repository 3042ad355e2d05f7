import { readFileSync } from 'node:fs';
import { Router, type RequestHandler } from 'express';
import { ProblemError } from '../../domain/problems.ts';
import type { AppDeps } from '../context.ts';
import { interfaceRouter } from '../interface-router.ts';
import { allowOnPage, DOCS_PAGE_POLICY } from '../middleware/security-headers.ts';
import { CHANGELOG_PATH, DESCRIPTION_PATH } from '../openapi/description-operations.ts';
import { asset, docsInit, docsPage, DOCS_PATH, represent, sendConditional, type Representation } from '../openapi/routes.ts';
import { platformAuth } from './auth.ts';
import { INTERNAL_BASE, internalOperations } from './catalogue.ts';
import { platformDocument } from './openapi.ts';

// The renderer is served under the interface's own base: its listener may serve nothing else.
const ASSETS = `${INTERNAL_BASE}${DOCS_PATH}`;
const page = docsPage('Platform interface v1', INTERNAL_BASE, `${ASSETS}/init.js`, ASSETS);
const init = docsInit(INTERNAL_BASE);

const onlyGet: RequestHandler = (req, res) => {
  res.setHeader('Allow', 'GET, HEAD');
  if (req.method === 'OPTIONS') res.status(204).end();
  else throw new ProblemError('method_not_allowed');
};

/**
 * The platform interface under INTERNAL_BASE: its description, changelog and docs page (no
 * token: they describe shapes and hold no data), then its operations behind the platform token.
 */
export function platformRouter(deps: AppDeps, options: { bodyLimit: string }): Router {
  const router = Router({ strict: true });
  let changelog: Representation | undefined;
  const serialized = new Map<string, Representation>();
  router.get(DESCRIPTION_PATH, (req, res) => {
    const origin = req.app.locals.publicOrigin as string;
    if (!serialized.has(origin)) serialized.set(origin, represent(JSON.stringify(platformDocument(origin))));
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
  router.get(`${DOCS_PATH}/swagger-ui-bundle.js`, asset('swagger-ui-bundle.js'));
  router.get(`${DOCS_PATH}/swagger-ui.css`, asset('swagger-ui.css'));
  const platform = platformAuth(deps);
  router.use(interfaceRouter(internalOperations, deps, () => [platform], options));
  return router;
}
