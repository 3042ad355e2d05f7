import { randomBytes } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { PROBLEMS, ProblemError } from '../../domain/problems.ts';
import { negotiateHostLocale, type HostLocale } from '../../domain/host-locale.ts';
import type { Logger } from '../../infra/logger.ts';
import {
  csrfMatches,
  currentHostSession,
  endHostSession,
  openHostSession,
  peekHostLink,
  type HostSessionView,
} from '../../services/host-sessions.ts';
import type { AppDeps } from '../context.ts';
import { bodyReadRefusal } from '../middleware/body-read.ts';
import { isServiceUnavailable } from '../unavailable.ts';
import { requestNulErrors } from '../nul-characters.ts';
import { html } from './html.ts';
import { translator, type MessageKey } from './i18n.ts';
import { hostPagePolicy, renderLayout } from './layout.ts';
import { HostPageError, type HostPage, type HostPageResult } from './page.ts';
import { readSessionCookie, setSessionCookie } from './cookies.ts';
import { HOST_BASE } from './paths.ts';
import { switchOrganizationPage } from './switch-page.ts';

/**
 * The host pages under `/host` (public listener). Order of checks: the session cookie (every page
 * but the sign-in link and the signed-out page), then for a POST the form is read (url-encoded,
 * 16 KiB at most) and its CSRF token compared with the session's, then the page runs. Every
 * answer is `no-store`, sends no Referer, and has a CSP of its own with a fresh nonce.
 */

interface Locals {
  nonce: string;
  session?: HostSessionView;
  /** The language of a page shown outside a session's pages (the switch question speaks the link's). */
  locale?: HostLocale;
}
const locals = (res: Response) => res.locals as Locals;

function localeOf(req: Request, res: Response): HostLocale {
  return locals(res).locale ?? locals(res).session?.locale ?? negotiateHostLocale(req.get('accept-language'));
}

/** Writes a page in the layout with the host pages' policy. */
function sendPage(
  req: Request,
  res: Response,
  page: { status?: number; title: string; body: ReturnType<typeof html> },
): void {
  const locale = localeOf(req, res);
  const { nonce, session } = locals(res);
  res.setHeader('Content-Security-Policy', hostPagePolicy(nonce));
  res
    .status(page.status ?? 200)
    .type('html')
    .send(
      renderLayout({
        locale,
        t: translator(locale),
        nonce,
        title: page.title,
        body: page.body,
        path: req.method === 'GET' ? req.originalUrl : `${HOST_BASE}/`,
        ...(session ? { session: { organizationName: session.organizationName, csrfToken: session.csrfToken } } : {}),
      }),
    );
}

function sendMessage(
  req: Request,
  res: Response,
  status: number,
  titleKey: MessageKey,
  bodyKey: MessageKey,
  values: Record<string, string> = {},
): void {
  const t = translator(localeOf(req, res));
  const back = locals(res).session ? html`<p><a href="${HOST_BASE}/">${t('back.owners')}</a></p>` : '';
  sendPage(req, res, {
    status,
    title: t(titleKey),
    body: html`<h1>${t(titleKey)}</h1><p>${t(bodyKey, values)}</p>${back}`,
  });
}

function sendResult(req: Request, res: Response, result: HostPageResult): void {
  if (result.kind === 'redirect') {
    res.redirect(303, result.location);
  } else if (result.kind === 'document') {
    res.setHeader('Content-Security-Policy', result.policy);
    res.status(200).type('html').send(result.html);
  } else {
    sendPage(req, res, { status: result.status ?? 200, title: result.title, body: result.body });
  }
}

const commonHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  locals(res).nonce = randomBytes(16).toString('base64');
  next();
};

/** A live session, or the "session ended" page (401). */
function requireSession(deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    const session = await currentHostSession(deps, readSessionCookie(req));
    if (!session) {
      sendMessage(req, res, 401, 'session.ended.title', 'session.ended.body');
      return;
    }
    locals(res).session = session;
    next();
  };
}

/** Bytes of a host form's body. */
export const FORM_BODY_LIMIT = 16 * 1024;

const formBody = express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT, parameterLimit: 50 });

const requireCsrf: RequestHandler = (req, res, next) => {
  const form = (req.body ?? {}) as Record<string, unknown>;
  if (!csrfMatches(locals(res).session!, form.csrf)) {
    sendMessage(req, res, 403, 'form.expired.title', 'form.expired.body');
    return;
  }
  next();
};

/** A NUL in a path parameter, the query or the form is refused as a page (400) naming the fields, before the page runs. */
function refuseNul(req: Request, res: Response): boolean {
  const errors = requestNulErrors({ params: req.params, query: req.query, body: req.body as unknown });
  if (errors.length === 0) return false;
  const fields = errors.map((error) =>
    'parameter' in error ? error.parameter : 'pointer' in error ? error.pointer.slice(1) : error.header,
  );
  sendMessage(req, res, 400, 'form.invalid.title', 'form.invalid.body', {
    fields: [...new Set(fields)].join(', ').replaceAll('\u0000', '\uFFFD'),
  });
  return true;
}

function runPage(deps: AppDeps, page: HostPage): RequestHandler {
  return async (req, res) => {
    if (refuseNul(req, res)) return;
    const session = locals(res).session!;
    const form = Object.fromEntries(
      Object.entries((req.body ?? {}) as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    const result = await page.handler({
      deps,
      req,
      res,
      session,
      locale: session.locale,
      t: translator(session.locale),
      nonce: locals(res).nonce,
      params: req.params as Record<string, string>,
      form,
    });
    sendResult(req, res, result);
  };
}

/** Refusals and failures as pages: never a stack, a message or a JSON body. */
function hostErrors(log: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof HostPageError) return sendMessage(req, res, error.status, error.titleKey, error.bodyKey);
    // The form reader's refusals (too large, too many fields, an unknown charset or coding, a body
    // that does not decode or is cut short): the client's bad input, so a 4xx page and an info line.
    const refusal = bodyReadRefusal(error, req);
    if (refusal) {
      log.info('host form refused', {
        requestId: String(res.getHeader('Request-Id') ?? ''),
        route: req.baseUrl + req.path,
        status: refusal.status,
        reason: refusal.reason,
      });
      return refusal.reason === 'too_large'
        ? sendMessage(req, res, 413, 'form.expired.title', 'form.expired.body')
        : sendMessage(req, res, refusal.status, 'form.unreadable.title', 'form.unreadable.body');
    }
    if (error instanceof ProblemError && PROBLEMS[error.code].status === 404)
      return sendMessage(req, res, 404, 'not_found.title', 'not_found.body');
    if (isServiceUnavailable(error) || (error instanceof ProblemError && error.code === 'service_unavailable')) {
      res.setHeader('Retry-After', '5');
      return sendMessage(req, res, 503, 'unavailable.title', 'unavailable.body');
    }
    const reference = String(res.getHeader('Request-Id') ?? '');
    log.error('host page failed', {
      requestId: reference,
      method: req.method,
      route: `${req.baseUrl}${(req.route as { path?: string } | undefined)?.path ?? ''}`,
      error: error instanceof Error ? error.stack : String(error),
    });
    return sendMessage(req, res, 500, 'error.title', 'error.body', { reference });
  };
}

/**
 * The router mounted at `/host`. `pages` are the session's pages (api/host/pages/index.ts); the
 * sign-in link and the signed-out page are the two that need no session.
 */
export function hostRouter(deps: AppDeps, pages: readonly HostPage[]): Router {
  const router = Router({ strict: true });

  /** Spends the link and starts its session (ending `replacing`, the browser's session it replaces), or says why not. */
  async function openLink(req: Request, res: Response, token: string, replacing?: HostSessionView): Promise<void> {
    const opening = await openHostSession(deps, token);
    if (opening.outcome === 'opened') {
      if (replacing) await endHostSession(deps, replacing);
      setSessionCookie(res, opening.cookie, opening.maxAgeSeconds);
      res.redirect(303, `${HOST_BASE}/`);
      return;
    }
    const status = opening.outcome === 'unknown' ? 404 : 410;
    sendMessage(req, res, status, `link.${opening.outcome}.title`, `link.${opening.outcome}.body`);
  }

  router.use(commonHeaders);

  // The link the platform handed out. Its token travels in the query string, which neither the
  // access log nor the error log writes (they log the path only).
  router.get('/open', async (req, res) => {
    // Express answers HEAD with the GET route: a link checker's HEAD must not spend the link.
    if (req.method === 'HEAD') {
      res.status(200).type('html').end();
      return;
    }
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    // A browser signed in to another organization is asked first; the link waits for the answer.
    const current = await currentHostSession(deps, readSessionCookie(req));
    const link = current ? await peekHostLink(deps, token) : null;
    if (current && link && link.organizationId !== current.organizationId) {
      locals(res).locale = link.locale;
      const t = translator(link.locale);
      sendPage(
        req,
        res,
        switchOrganizationPage({
          t,
          token,
          csrfToken: current.csrfToken,
          current: current.organizationName,
          next: link.organizationName,
        }),
      );
      return;
    }
    await openLink(req, res, token);
  });
  // The answer "continue" to that question: the form carries the link's token and the current session's CSRF token.
  router.post('/open', formBody, async (req, res) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const current = await currentHostSession(deps, readSessionCookie(req));
    if (!current || !csrfMatches(current, form.csrf)) {
      sendMessage(req, res, 403, 'form.expired.title', 'form.expired.body');
      return;
    }
    await openLink(req, res, typeof form.token === 'string' ? form.token : '', current);
  });
  router.get('/signed-out', (req, res) => sendMessage(req, res, 200, 'signed_out.title', 'signed_out.body'));

  const session = requireSession(deps);
  for (const page of pages) {
    if (page.method === 'get') router.get(page.path, session, runPage(deps, page));
    else router.post(page.path, session, formBody, requireCsrf, runPage(deps, page));
  }
  router.use((req: Request, res: Response) => sendMessage(req, res, 404, 'not_found.title', 'not_found.body'));
  router.use(hostErrors(deps.log));
  return router;
}
