import type { RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { insertSandboxRequest } from '../../db/sandbox-requests.ts';
import { loggedPath } from '../../domain/sandbox/request-log.ts';
import { sandboxRequestLogFailures } from '../../infra/metrics.ts';
import type { AppDeps, Caller } from '../context.ts';
import type { Operation } from '../operations.ts';

/** The query parameters an operation declares: their values are logged, any other's withheld. */
function declaredQuery(schema: z.ZodType | undefined): ReadonlySet<string> {
  let current: unknown = schema;
  // A refined or transformed object keeps its shape on itself or on the pipe's input.
  for (let depth = 0; depth < 3 && current; depth += 1) {
    const shape = (current as { shape?: Record<string, unknown> }).shape;
    if (shape && typeof shape === 'object') return new Set(Object.keys(shape));
    current = (current as { def?: { in?: unknown } }).def?.in;
  }
  return new Set();
}

/** The units charged for an answered request: the first, with its key's check, and any after it. */
function unitsCharged(res: Response): number {
  return 1 + ((res.locals.unitsAfterFirst as number | undefined) ?? 0);
}

/**
 * In a sandbox deployment, records every request authenticated with the channel's key once its
 * answer is finished (or the client went away: 499): method, path with the declared query, status,
 * problem `code`, units charged, duration, request id, key id, instant. Never a header or a body.
 * A request refused before a key was found (a malformed, unknown or revoked key) names no channel
 * and is not recorded. The write is best effort and after the answer: a failure is counted
 * (`svc_sandbox_request_log_failures_total`) and logged without values, never answered.
 */
export function sandboxRequestLog(deps: AppDeps): (operation: Pick<Operation, 'query'>) => RequestHandler[] {
  if (deps.config.environment !== 'sandbox') return () => [];
  return (operation) => {
    const declared = declaredQuery(operation.query);
    return [
      (req, res, next) => {
        const receivedAt = deps.clock.now();
        const started = process.hrtime.bigint();
        res.once('close', () => {
          const caller = res.locals.caller as Caller | undefined;
          if (!caller) return;
          insertSandboxRequest(deps.orm.em, {
            channelId: caller.channel.id,
            keyId: caller.key.id,
            requestId: String(res.getHeader('Request-Id') ?? ''),
            method: req.method,
            path: loggedPath(req.originalUrl, declared),
            status: res.writableFinished ? res.statusCode : 499,
            code: (res.locals.refusalCode as string | undefined) ?? null,
            units: unitsCharged(res),
            durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
            receivedAt,
          }).catch((error: unknown) => {
            sandboxRequestLogFailures.inc();
            deps.log.warn('sandbox request not logged', {
              requestId: res.getHeader('Request-Id'),
              error: (error as { code?: string }).code ?? (error as Error).name,
            });
          });
        });
        next();
      },
    ];
  };
}
