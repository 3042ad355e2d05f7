import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isServiceUnavailable } from '../unavailable.ts';
import type { Logger } from '../../infra/logger.ts';
import { sendProblem } from '../problem.ts';
import { ProblemError } from '../../domain/problems.ts';

export const notFound: RequestHandler = (req, res) => {
  sendProblem(req, res, 'not_found');
};

/**
 * The one place a failure becomes an answer: catalogue problems as they are (a body the reader
 * refused among them: api/middleware/json-body.ts makes it one), a lost database or Temporal as
 * 503, and anything else as `internal` without its message.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  const answer = problemAnswer(log);
  return (error: unknown, req, res, next) => {
    // A read may run beside its key's check (authenticate.ts): its refusal waits for the check,
    // and a refused key, a suspended channel or a spent limit is the answer instead.
    const counting = res.locals.charged as Promise<void> | undefined;
    if (counting && !res.headersSent) {
      counting.then(
        () => answer(error, req, res, next),
        (limited: unknown) => answer(limited, req, res, next),
      );
      return;
    }
    answer(error, req, res, next);
  };
}

function problemAnswer(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof ProblemError) {
      sendProblem(req, res, error.code, error.extras);
      return;
    }
    const requestId = res.getHeader('Request-Id');
    if (isServiceUnavailable(error)) {
      log.warn('dependency unavailable', { requestId, error: String(error) });
      sendProblem(req, res, 'service_unavailable', { headers: { 'Retry-After': '5' } });
      return;
    }
    log.error('unexpected failure', {
      requestId,
      method: req.method,
      path: req.path,
      error: error instanceof Error ? error.stack : String(error),
    });
    sendProblem(req, res, 'internal');
  };
}
