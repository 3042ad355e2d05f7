import express, { type Express } from 'express';
import type { AppDeps } from './context.ts';
import { DISTRIBUTION_BASE, distributionOperations } from './distribution/index.ts';
import { health } from './health.ts';
import { INTEGRATION_BASE, integrationRouter } from './integration/index.ts';
import { platformAuth } from './internal/auth.ts';
import { INTERNAL_BASE, internalOperations } from './internal/catalogue.ts';
import { interfaceRouter } from './interface-router.ts';
import { errorHandler, notFound } from './middleware/errors.ts';
import { descriptionRouter } from './openapi/routes.ts';
import { httpsOnly } from './middleware/https-only.ts';
import { parseJsonBody, requireJsonBody } from './middleware/json-body.ts';
import { requestId } from './middleware/request-id.ts';
import { problemIndex, problemPage } from './problem-pages.ts';

/** The whole HTTP surface, built apart from any listener so tests can serve it on their own port. */
export function createApp(deps: AppDeps, options: { publicOrigin: string }): Express {
  const app = express();
  app.disable('x-powered-by');
  // Validators are set explicitly on successful reads (api/conditional.ts), never on refusals.
  app.set('etag', false);
  app.set('trust proxy', deps.config.http.trustProxy);
  app.set('strict routing', true);
  app.locals.publicOrigin = options.publicOrigin;

  // No request-scoped EntityManager: every service and repository call forks its own unit of
  // work explicitly, and MikroORM refuses any use of the global one.
  app.use(requestId);
  app.use(httpsOnly);
  app.get('/health', health(deps));
  app.get('/problems/', problemIndex);
  app.get('/problems/:slug', problemPage);
  app.use(descriptionRouter());
  app.use(INTEGRATION_BASE, integrationRouter(deps));
  app.use(requireJsonBody, parseJsonBody);
  app.use(DISTRIBUTION_BASE, interfaceRouter(distributionOperations, deps));
  const platform = platformAuth(deps);
  app.use(INTERNAL_BASE, interfaceRouter(internalOperations, deps, () => [platform]));
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
