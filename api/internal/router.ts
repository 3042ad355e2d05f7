import { Router } from 'express';
import { ProblemError } from '../../domain/problems.ts';
import type { AppDeps } from '../context.ts';
import { interfaceRouter } from '../interface-router.ts';
import { docsInit, docsPage, DOCS_PATH, mountDescription, perOrigin } from '../openapi/routes.ts';
import { platformAuth } from './auth.ts';
import { INTERNAL_BASE, internalOperations } from './catalogue.ts';
import { platformDocument } from './openapi.ts';

const ASSETS = `${INTERNAL_BASE}${DOCS_PATH}`;
const page = docsPage('Platform interface v1', INTERNAL_BASE, `${ASSETS}/init.js`, ASSETS);
const init = docsInit(INTERNAL_BASE);

/**
 * The platform interface under INTERNAL_BASE: its description, changelog and docs page, then its
 * operations behind the platform token.
 */
export function platformRouter(deps: AppDeps, options: { bodyLimit: number }): Router {
  const router = Router({ strict: true });
  mountDescription(router, {
    prefix: '',
    description: perOrigin(platformDocument),
    changelog: new URL('./CHANGELOG.md', import.meta.url),
    page,
    init,
    // The renderer is served under the interface's own base: its listener may serve nothing else.
    serveRenderer: true,
    refuse: () => {
      throw new ProblemError('method_not_allowed');
    },
  });
  const platform = platformAuth(deps);
  router.use(interfaceRouter(internalOperations, deps, () => [platform], options));
  return router;
}
