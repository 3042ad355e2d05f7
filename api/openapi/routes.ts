import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { matchesIfNoneMatch, weakEtag } from '../conditional.ts';
import { codedEtag, codingFor, compressSync, type ContentCoding } from '../content-coding.ts';
import { DISTRIBUTION_BASE } from '../distribution/index.ts';
import { allowOnPage, DOCS_PAGE_POLICY } from '../middleware/security-headers.ts';
import { sendProblem } from '../problem.ts';
import { CHANGELOG_PATH, DESCRIPTION_PATH } from './description-operations.ts';
import type { DeploymentEnvironment } from '../operations.ts';
import { openApiDocument } from './document.ts';

export const DOCS_PATH = '/docs';

const rendererDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export interface Representation {
  body: string;
  etag: string;
  /** The body in each coding asked for so far, compressed once. */
  coded?: Map<ContentCoding, Buffer>;
}

/** A body with its validator, computed once: descriptions and changelogs do not change while the process runs. */
export const represent = (body: string): Representation => ({ body, etag: weakEtag(body), coded: new Map() });
const descriptions = new Map<string, Representation>();

function description(req: Request): Representation {
  const origin = req.app.locals.publicOrigin as string;
  const environment = req.app.locals.environment as DeploymentEnvironment;
  const key = `${environment} ${origin}`;
  let entry = descriptions.get(key);
  if (!entry) {
    entry = represent(JSON.stringify(openApiDocument(origin, environment)));
    descriptions.set(key, entry);
  }
  return entry;
}

/**
 * Same validator rule as the interface's reads: weak ETag from the body, 304 on a match; the
 * body compressed as the interface's answers are, once per coding for the life of the process.
 */
export function sendConditional(req: Request, res: Response, type: string, representation: Representation): void {
  const { body, etag } = representation;
  const coding = codingFor(req, body.length);
  res.vary('Accept-Encoding');
  res.setHeader('ETag', codedEtag(etag, coding));
  res.setHeader('Cache-Control', 'public, max-age=300');
  if (matchesIfNoneMatch(req, etag)) {
    res.status(304).end();
    return;
  }
  res.type(type);
  if (coding === 'identity') {
    res.send(body);
    return;
  }
  representation.coded ??= new Map();
  let coded = representation.coded.get(coding);
  if (!coded) {
    coded = compressSync(coding, Buffer.from(body));
    representation.coded.set(coding, coded);
  }
  res.setHeader('Content-Encoding', coding);
  res.send(coded);
}

/**
 * The Swagger UI page of an interface's description, for `{base}/docs` or the distribution's
 * `/docs`. `assets`: where its listener serves the renderer (the platform's may be a listener of its own).
 */
export function docsPage(title: string, base: string, initPath: string, assets = DOCS_PATH): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
</head>
<body>
<noscript><p>The description is at <a href="${base}${DESCRIPTION_PATH}">${base}${DESCRIPTION_PATH}</a>, its changelog at <a href="${base}${CHANGELOG_PATH}">${base}${CHANGELOG_PATH}</a>.</p></noscript>
<div id="description"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${initPath}"></script>
</body>
</html>
`;
}

// A file of its own rather than inline, so the page's Content-Security-Policy allows no inline script.
// validatorUrl: null keeps the renderer from calling a public validator: the page works offline.
export function docsInit(base: string): string {
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '${base}${DESCRIPTION_PATH}', dom_id: '#description', deepLinking: true, showExtensions: true, validatorUrl: null, defaultModelsExpandDepth: 0 });
});
`;
}

const page = docsPage('Distribution interface v1', DISTRIBUTION_BASE, `${DOCS_PATH}/init.js`);
const init = docsInit(DISTRIBUTION_BASE);

export const asset =
  (file: string): RequestHandler =>
  (_req, res, next) => {
    res.sendFile(path.join(rendererDir, file), { maxAge: '1h' }, (error) => {
      if (error) next(error);
    });
  };

/** The answer to any other method on a description's addresses: `refuse` in the interface's own shape. */
export const onlyGet =
  (refuse: RequestHandler): RequestHandler =>
  (req, res, next) => {
    res.setHeader('Allow', 'GET, HEAD');
    if (req.method === 'OPTIONS') res.status(204).end();
    else refuse(req, res, next);
  };

/** A description built once per public origin, serialized once: the registry does not change while the process runs. */
export function perOrigin(build: (origin: string) => unknown): (req: Request) => Representation {
  const serialized = new Map<string, Representation>();
  return (req) => {
    const origin = req.app.locals.publicOrigin as string;
    let entry = serialized.get(origin);
    if (!entry) {
      entry = represent(JSON.stringify(build(origin)));
      serialized.set(origin, entry);
    }
    return entry;
  };
}

export interface DescribedInterface {
  /** Router-relative prefix of `openapi.json` and `CHANGELOG.md`. */
  prefix: string;
  description: (req: Request) => Representation;
  changelog: URL;
  /** The docs page and its script (`docsPage`, `docsInit`), served at the router's DOCS_PATH. */
  page: string;
  init: string;
  /** Whether this router also serves the renderer beside the page (else another does, on the same listener). */
  serveRenderer: boolean;
  /** Another method on the description's addresses, answered in the interface's shape. */
  refuse: RequestHandler;
}

/**
 * An interface's description, changelog and docs page on `router`. None needs a key or a token:
 * they describe shapes and hold no data. The renderer is Swagger UI from node_modules (no CDN:
 * the machines have no internet).
 */
export function mountDescription(router: Router, spec: DescribedInterface): void {
  let changelog: Representation | undefined;
  const paths = [spec.prefix + DESCRIPTION_PATH, spec.prefix + CHANGELOG_PATH];
  router.get(paths[0]!, (req, res) => {
    sendConditional(req, res, 'application/json', spec.description(req));
  });
  router.get(paths[1]!, (req, res) => {
    changelog ??= represent(readFileSync(spec.changelog, 'utf8'));
    sendConditional(req, res, 'text/markdown; charset=utf-8', changelog);
  });
  router.all(paths, onlyGet(spec.refuse));
  router.get(DOCS_PATH, (_req, res) => {
    allowOnPage(res, DOCS_PAGE_POLICY);
    res.type('html').send(spec.page);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(spec.init);
  });
  if (spec.serveRenderer) {
    router.get(`${DOCS_PATH}/swagger-ui-bundle.js`, asset('swagger-ui-bundle.js'));
    router.get(`${DOCS_PATH}/swagger-ui.css`, asset('swagger-ui.css'));
  }
}

/** The distribution interface's description (one per environment and origin), changelog and `/docs`. */
export function descriptionRouter(): Router {
  const router = Router({ strict: true });
  mountDescription(router, {
    prefix: DISTRIBUTION_BASE,
    description,
    changelog: new URL('./CHANGELOG.md', import.meta.url),
    page,
    init,
    serveRenderer: true,
    refuse: (req, res) => sendProblem(req, res, 'method_not_allowed'),
  });
  return router;
}
