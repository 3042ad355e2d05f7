import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { missingScopes, type Scope } from '../domain/scopes.ts';
import { matchesIfNoneMatch, weakEtag } from './conditional.ts';
import { codedEtag, codingFor, writeBody } from './content-coding.ts';
import { callerOf, type AppDeps } from './context.ts';
import { markOperation } from './middleware/access-log.ts';
import { authenticate } from './middleware/authenticate.ts';
import { DEFAULT_BODY_LIMIT, jsonBodyParser, requireJsonBody } from './middleware/json-body.ts';
import { settleCharge } from './middleware/rate-limit.ts';
import { sandboxRequestLog } from './middleware/sandbox-request-log.ts';
import {
  expressPath,
  isPlannedIn,
  isServedIn,
  type HttpMethod,
  type OperationResult,
  type RoutedOperation,
} from './operations.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import { readBackErrors } from './read-back.ts';
import { MAX_PARAMETER_ERRORS, toParameterErrors, type InputLocation } from './validation.ts';
import { requestNulErrors } from './nul-characters.ts';

/** The input as its schema parses it, and the rules it breaks (one more than a refusal lists, at most). */
function parseInput(
  schema: z.ZodType | undefined,
  value: unknown,
  where: InputLocation,
): { data: unknown; errors: ParameterError[] } {
  const parsed = schema?.safeParse(value);
  if (parsed?.success === false)
    return { data: undefined, errors: toParameterErrors(parsed.error, where, value, MAX_PARAMETER_ERRORS + 1) };
  return { data: parsed?.data, errors: [] };
}

/** One refusal for every failed rule, the first MAX_PARAMETER_ERRORS listed. */
function invalidInput(failed: ParameterError[]): ProblemError {
  const errors = failed.slice(0, MAX_PARAMETER_ERRORS);
  return new ProblemError('invalid_parameters', {
    errors,
    ...(failed.length > errors.length
      ? { detail: `More than ${errors.length} rules failed; the first ${errors.length} are listed` }
      : {}),
  });
}

const scopeChallenge = (scopes: readonly string[]) => ({
  'WWW-Authenticate': `Bearer realm="distribution", error="insufficient_scope", scope="${scopes.join(' ')}"`,
});

function requireScopes(operation: RoutedOperation): RequestHandler {
  return (_req, res, next) => {
    const held = callerOf(res).key.scopes;
    const missing = missingScopes(held, operation.scopes ?? []);
    if (missing.length > 0)
      throw new ProblemError('insufficient_scope', { required_scopes: missing, headers: scopeChallenge(missing) });
    const alternatives = operation.anyOfScopes ?? [];
    if (alternatives.length > 0 && !alternatives.some((scope) => held.includes(scope))) {
      throw new ProblemError('insufficient_scope', {
        required_scopes: alternatives,
        required_scopes_match: 'any',
        detail: `Needs any one of ${alternatives.join(', ')}`,
        headers: scopeChallenge(alternatives),
      });
    }
    next();
  };
}

function deprecationHeaders<S extends string>(operation: RoutedOperation<S>): RequestHandler {
  return (_req, res, next) => {
    const { deprecation } = operation;
    if (deprecation) {
      res.setHeader('Deprecation', `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`);
      res.setHeader('Sunset', deprecation.sunsetAt.toUTCString());
      if (deprecation.link) res.setHeader('Link', `<${deprecation.link}>; rel="deprecation"`);
    }
    next();
  };
}

/** The request's own path and query with `cursor` set to the next page's: the same query continues. */
function nextPageUrl(req: Request, cursor: string): string {
  const [path = '', search = ''] = req.originalUrl.split('?', 2);
  const query = new URLSearchParams(search);
  query.set('cursor', cursor);
  return `${path}?${query.toString()}`;
}

/** One more link beside any already set (a deprecated operation's `rel="deprecation"`). */
function appendLink(res: Response, link: string): void {
  const current = res.getHeader('Link');
  res.setHeader('Link', current === undefined ? link : `${String(current)}, ${link}`);
}

/** Validates the input and runs the handler; throws a ProblemError on bad input. */
async function execute<S extends string>(
  operation: RoutedOperation<S>,
  deps: AppDeps,
  input: { query?: unknown; params?: unknown; body?: unknown },
  req: Request,
  res: Response,
): Promise<OperationResult> {
  if (isPlannedIn(operation, deps.config.environment) || !operation.handler)
    throw new ProblemError('not_implemented', {
      detail: `${operation.method.toUpperCase()} ${operation.path} is planned and not served yet`,
    });
  // Only the inputs the operation reads: one that takes no query ignores it, NUL or not.
  const nul = requestNulErrors({
    ...(operation.params ? { params: input.params } : {}),
    ...(operation.query ? { query: input.query } : {}),
    ...(operation.body ? { body: input.body } : {}),
  });
  if (nul.length > 0) throw new ProblemError('invalid_parameters', { errors: nul });
  // Query, path and body are checked together, and a refused request also gets the rules its
  // handler would check next (`laterRules`): one refusal lists every rule the request breaks.
  const raw = { query: input.query ?? {}, params: input.params ?? {}, body: input.body ?? {} };
  const query = parseInput(operation.query, raw.query, 'query');
  const params = parseInput(operation.params, raw.params, 'params');
  const body = parseInput(operation.body, raw.body, 'body');
  const failed = [
    ...query.errors,
    ...params.errors,
    ...body.errors,
    ...readBackErrors(operation.readBack, raw.params, raw.body),
  ];
  if (failed.length > 0) {
    // Past the listed number already: the later rules would add nothing the answer shows.
    if (operation.laterRules && failed.length <= MAX_PARAMETER_ERRORS)
      failed.push(
        ...(await operation.laterRules({
          ...raw,
          get caller() {
            return callerOf(res);
          },
          deps,
        })),
      );
    throw invalidInput(failed);
  }
  return operation.handler({
    query: query.data,
    params: params.data,
    body: body.data,
    // Read on demand: only a distribution operation's handler asks for the channel's caller.
    get caller() {
      return callerOf(res);
    },
    deps,
    req,
    res,
  });
}

function runOperation<S extends string>(operation: RoutedOperation<S>, deps: AppDeps): RequestHandler {
  return async (req: Request, res: Response) => {
    const result = await execute(
      operation,
      deps,
      { query: req.query, params: req.params, body: req.body ?? {} },
      req,
      res,
    );
    // A read may have run beside its key's check: a refused key or a spent limit is the answer
    // whatever the read found (a refusal thrown above waits for the check in the error handler).
    await settleCharge(res);
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    if (typeof result.nextCursor === 'string') appendLink(res, `<${nextPageUrl(req, result.nextCursor)}>; rel="next"`);
    const status =
      result.status ??
      (result.body === undefined &&
      result.json === undefined &&
      result.jsonChunks === undefined &&
      result.html === undefined
        ? 204
        : 200);
    if (result.html !== undefined) {
      res.status(status).type('html').end(result.html);
      return;
    }
    if (result.body === undefined && result.json === undefined && result.jsonChunks === undefined) {
      res.status(status).end();
      return;
    }
    // Written as they are: `res.send` would first copy a page of several hundred KB into a Buffer,
    // and a page of records is written record by record rather than joined into one string.
    const chunks = result.jsonChunks ?? [result.json ?? JSON.stringify(result.body)];
    let size = 0;
    for (const chunk of chunks) size += chunk.length;
    const coding = codingFor(req, size);
    res.vary('Accept-Encoding');
    if (operation.method === 'get' && status === 200) {
      const etag = weakEtag(result.etagBasis ?? chunks.join(''));
      res.setHeader('ETag', codedEtag(etag, coding));
      if (matchesIfNoneMatch(req, etag)) {
        res.status(304).end();
        return;
      }
    }
    res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
    writeBody(res, coding, chunks);
  };
}

/**
 * The distribution interface's guards: channel key and rate limit, then the operation's scopes; in
 * a sandbox, the request recorded in the channel's own log once answered.
 */
export function channelGuards(deps: AppDeps): (operation: RoutedOperation) => RequestHandler[] {
  const auth = authenticate(deps);
  const logged = sandboxRequestLog(deps);
  return (operation) =>
    operation.scopes === null ? [] : [...logged(operation), auth(operation), requireScopes(operation)];
}

/** What an interface's answers say to caches: they are one caller's, and may be credentials. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * Mounts an interface's operations: each gets its guards (for the distribution interface:
 * authentication, rate limiting, scope check), then its body is read (up to `bodyLimit`), then
 * validated; a known path with another method answers 405 with `Allow`. Nothing an unauthenticated
 * caller sends is parsed.
 */
export function interfaceRouter<S extends string = Scope>(
  operations: readonly RoutedOperation<S>[],
  deps: AppDeps,
  guardsFor: (operation: RoutedOperation<S>) => RequestHandler[],
  options: {
    /** Bytes of a decoded body; DEFAULT_BODY_LIMIT (1 MiB) unless given. */
    bodyLimit?: number;
    /** Counts a request that carries a usable key although it is answered before authentication (404, 405). */
    countKey?: (req: Request, res: Response) => Promise<void>;
  } = {},
): Router {
  const router = Router({ strict: true });
  router.use(noStore);
  const body = [requireJsonBody, jsonBodyParser(options.bodyLimit ?? DEFAULT_BODY_LIMIT)];
  const methodsByPath = new Map<string, Set<HttpMethod>>();
  // An operation this environment does not serve has no route: its path is unknown here (404).
  const served = operations.filter((operation) => isServedIn(operation, deps.config.environment));
  for (const operation of served) {
    const path = expressPath(operation.path);
    const guards = guardsFor(operation);
    const bodyOf = operation.bodyLimit ? [requireJsonBody, jsonBodyParser(operation.bodyLimit)] : body;
    router[operation.method](
      path,
      markOperation(operation.operationId),
      deprecationHeaders(operation),
      ...guards,
      ...bodyOf,
      runOperation(operation, deps),
    );
    methodsByPath.set(path, (methodsByPath.get(path) ?? new Set()).add(operation.method));
  }
  const { countKey } = options;
  const takesKey = new Set(
    served.filter((operation) => operation.scopes !== null).map((operation) => expressPath(operation.path)),
  );
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()])).join(', ');
    router.all(path, async (req, res) => {
      res.setHeader('Allow', allow);
      if (countKey && takesKey.has(path)) await countKey(req, res);
      if (req.method === 'OPTIONS') res.status(204).end();
      // Thrown, not sent: each interface's error handler gives the refusal its own shape.
      else throw new ProblemError('method_not_allowed');
    });
  }
  if (countKey) {
    // An unknown path under the interface's base: its 404, counted like the 405 above.
    router.use(async (req, _res, next) => {
      await countKey(req, _res);
      next(new ProblemError('not_found'));
    });
  }
  return router;
}
