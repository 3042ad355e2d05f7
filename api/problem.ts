import type { Request, Response } from 'express';
import { markRefusal } from './middleware/access-log.ts';
import { codingFor, writeBody } from './content-coding.ts';
import { negotiateLanguage, PROBLEMS, problemSlug, type ProblemCode, type ProblemExtras } from '../domain/problems.ts';

export function problemBase(req: Request): string {
  return `${req.app.locals.publicOrigin as string}/problems`;
}

/** The RFC 9457 body: machine fields fixed, `title` in the caller's language. */
export function problemBody(req: Request, res: Response, code: ProblemCode, extras: ProblemExtras = {}) {
  const definition = PROBLEMS[code];
  const requestId = res.getHeader('Request-Id') as string;
  const { headers: _headers, ...fields } = extras;
  return {
    type: `${problemBase(req)}/${problemSlug(code)}`,
    code,
    title: definition.title[negotiateLanguage(req.get('accept-language'))],
    status: definition.status,
    ...(fields.detail !== undefined ? { detail: fields.detail } : {}),
    instance: `urn:uuid:${requestId}`,
    request_id: requestId,
    ...(fields.required_scopes ? { required_scopes: fields.required_scopes } : {}),
    ...(fields.required_scopes_match ? { required_scopes_match: fields.required_scopes_match } : {}),
    ...(fields.errors ? { errors: fields.errors } : {}),
    ...(fields.horizon_end ? { horizon_end: fields.horizon_end } : {}),
  };
}

export function sendProblem(req: Request, res: Response, code: ProblemCode, extras: ProblemExtras = {}): void {
  markRefusal(res, code);
  for (const [name, value] of Object.entries(extras.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Language', negotiateLanguage(req.get('accept-language')));
  res.vary('Accept-Language');
  const body = JSON.stringify(problemBody(req, res, code, extras));
  // Compressed like any other answer when large (a long `errors` list) and the client accepts it.
  res.vary('Accept-Encoding');
  res.status(PROBLEMS[code].status).setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  writeBody(res, codingFor(req, body.length), [body]);
}
