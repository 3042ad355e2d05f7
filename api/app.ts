import express, { type Express } from 'express';
import type { AppDeps } from './context.ts';
import { DISTRIBUTION_BASE, distributionOperations } from './distribution/index.ts';
import { health, live } from './health.ts';
import { HOST_BASE } from './host/paths.ts';
import { HOST_PAGES } from './host/pages/index.ts';
import { hostRouter } from './host/router.ts';
import { INTEGRATION_BASE, integrationRouter } from './integration/index.ts';
import { INTERNAL_BASE } from './internal/catalogue.ts';
import { platformRouter } from './internal/router.ts';
import { channelGuards, interfaceRouter } from './interface-router.ts';
import { countUsableKey } from './middleware/authenticate.ts';
import { errorHandler, notFound } from './middleware/errors.ts';
import { descriptionRouter } from './openapi/routes.ts';
import { httpsOnly } from './middleware/https-only.ts';
import { accessLog } from './middleware/access-log.ts';
import { requestId } from './middleware/request-id.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { problemIndex, problemPage } from './problem-pages.ts';

/**
 * Which interfaces a listener serves: `all` on one listener (the sandbox default), or the public
 * one (distribution interface, description, problem pages) and the platform's on listeners of their own.
 */
export type Surface = 'all' | 'public' | 'internal';

/** Bodies the distribution interface takes are small (a webhook registration); the platform's bulk availability is not. */
export const DISTRIBUTION_BODY_LIMIT = 64 * 1024;
export const PLATFORM_BODY_LIMIT = 1024 * 1024;

/** The whole HTTP surface, built apart from any listener so tests can serve it on their own port. */
export function createApp(deps: AppDeps, options: { publicOrigin: string; surface?: Surface }): Express {
  const surface = options.surface ?? 'all';
  const app = express();
  app.disable('x-powered-by');
  // Validators are set explicitly on successful reads (api/conditional.ts), never on refusals.
  app.set('etag', false);
  app.set('trust proxy', deps.config.http.trustProxy);
  app.set('strict routing', true);
  app.locals.publicOrigin = options.publicOrigin;
  // The description marks what this environment does not serve yet (the sandbox serves first).
  app.locals.environment = deps.config.environment;

  // No request-scoped EntityManager: every service and repository call forks its own unit of
  // work explicitly, and MikroORM refuses any use of the global one. Bodies are read only by the
  // interface routers, after authentication.
  app.use(requestId);
  app.use(accessLog(deps.log));
  app.use(securityHeaders);
  app.use(httpsOnly);
  app.get('/health/live', live);
  app.get('/health', health(deps));
  if (surface !== 'internal') {
    app.get('/problems/', problemIndex);
    app.get('/problems/:slug', problemPage);
    app.use(descriptionRouter());
    // The host pages: hosts' browsers, signed in through a link the platform asked for.
    app.use(HOST_BASE, hostRouter(deps, HOST_PAGES));
    app.use(INTEGRATION_BASE, integrationRouter(deps));
    app.use(
      DISTRIBUTION_BASE,
      interfaceRouter(distributionOperations, deps, channelGuards(deps), {
        bodyLimit: DISTRIBUTION_BODY_LIMIT,
        countKey: countUsableKey(deps),
      }),
    );
  }
  if (surface !== 'public') {
    app.use(INTERNAL_BASE, platformRouter(deps, { bodyLimit: PLATFORM_BODY_LIMIT }));
  }
  app.use(notFound);
  app.use(errorHandler(deps.log));
  return app;
}
