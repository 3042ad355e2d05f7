import type { RequestHandler, Response } from 'express';

/** Everything else the service answers is JSON or a file: no script, no style, no framing. */
const NOTHING = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Every answer: no MIME sniffing, no framing, and a policy that allows nothing to run. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', NOTHING);
  next();
};

/**
 * An HTML page's policy: only what it names may load, and it is framed by no one. Forms go
 * nowhere unless the page names the one origin its form posts to (the owner-connect hand-off).
 */
export function allowOnPage(res: Response, directives: string, formAction = "'none'"): void {
  res.setHeader('Content-Security-Policy', pagePolicy(directives, formAction));
}

export function pagePolicy(directives: string, formAction = "'none'"): string {
  return `${directives}; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`;
}

/**
 * The Swagger UI pages (`/docs` of each interface): scripts and styles from this origin only
 * (Swagger UI is served from node_modules); Swagger UI sets style attributes, hence
 * 'unsafe-inline' for styles only; it fetches the description.
 */
export const DOCS_PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'";
