import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../infra/logger.ts';
import { apiAuthRefusals, apiRateLimited, apiRequestDuration, apiRequests } from '../../infra/metrics.ts';

/** Set by the interface routers: the operation a request reached, from the registry. */
export function markOperation(operationId: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.operationId = operationId;
    next();
  };
}

/** Set where a refusal is answered (both error shapes): the code it was refused with. */
export function markRefusal(res: Response, code: string): void {
  res.locals.refusalCode = code;
}

/**
 * What a request is counted and logged under: its operation id; else the template of the route
 * that answered it (the description, a problem page, health, a 405), never the raw path, so the
 * metrics' labels stay a fixed set; `unmatched` for a path nothing serves.
 */
function operationOf(req: Request, res: Response): string {
  const marked = res.locals.operationId as string | undefined;
  if (marked) return marked;
  const route = req.route as { path?: unknown } | undefined;
  const path = route?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  if (Array.isArray(path)) return `${req.baseUrl}${path.join('|')}`;
  if (path !== undefined) return `${req.baseUrl}(pattern)`;
  return 'unmatched';
}

function channelOf(res: Response): string | undefined {
  const caller = res.locals.caller as { channel?: { name?: string } } | undefined;
  return caller?.channel?.name;
}

function installationOf(res: Response): string | undefined {
  const caller = res.locals.integration as { installation?: { id?: string } } | undefined;
  return caller?.installation?.id;
}

/**
 * One log line and one count per request, when its answer is finished or the client went away
 * (status 499 then): request id, method, operation, path, status, duration, the channel or
 * installation when authenticated, the refusal code when refused, and for a body the service could
 * not read or would not walk why (`reason`: api/middleware/body-read.ts, domain/json-shape.ts).
 * No header and no body is logged, so no credential can be. Passing health probes are logged at debug only.
 */
export function accessLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const operation = operationOf(req, res);
      const status = res.writableFinished ? res.statusCode : 499;
      const code = res.locals.refusalCode as string | undefined;
      const reason = res.locals.refusalReason as string | undefined;
      apiRequests.inc({ operation, status: String(status) });
      apiRequestDuration.observe({ operation }, seconds);
      if (code === 'rate_limited') apiRateLimited.inc({ operation });
      if (code !== undefined && (status === 401 || code === 'too_many_failed_authentications'))
        apiAuthRefusals.inc({ code });
      const channel = channelOf(res);
      const installation = installationOf(res);
      // Health probes (every few seconds per load balancer) are counted, and logged only at debug.
      const level = operation.startsWith('/health') && status < 400 ? 'debug' : 'info';
      log[level]('request', {
        requestId: res.getHeader('Request-Id'),
        method: req.method,
        operation,
        path: req.originalUrl.split('?')[0],
        status,
        durationMs: Math.round(seconds * 10_000) / 10,
        ...(channel !== undefined ? { channel } : {}),
        ...(installation !== undefined ? { installation } : {}),
        ...(code !== undefined ? { code } : {}),
        ...(reason !== undefined ? { reason } : {}),
      });
    });
    next();
  };
}
