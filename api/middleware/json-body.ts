import express, { type Request, type RequestHandler, type Response } from 'express';
import { ProblemError } from '../../domain/problems.ts';
import { jsonShapeLimits, jsonShapeViolation } from '../../domain/json-shape.ts';
import { bodyReadRefusal, UNSUPPORTED_CHARSET, type BodyReadRefusal } from './body-read.ts';

const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

const JSON_TYPES = ['application/json', 'application/*+json'];

/** Bytes of a decoded JSON body an interface reads when it sets no limit of its own. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * Bodies are JSON in UTF-8 or nothing (RFC 8259 §8.1): another media type or charset is 415
 * before a handler sees it. The reader would decode any `utf-*` charset; UTF-8 only is also what
 * lets the shape check (domain/json-shape.ts) read structure off the raw bytes.
 */
export const requireJsonBody: RequestHandler = (req, res, next) => {
  if (!hasBody(req.headers)) return next();
  if (!req.is(JSON_TYPES)) {
    throw new ProblemError('unsupported_media_type', { detail: 'Send the body as application/json' });
  }
  const charset = CHARSET.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    res.locals.refusalReason = UNSUPPORTED_CHARSET.reason;
    throw bodyReadProblem(UNSUPPORTED_CHARSET);
  }
  next();
};

/** A body the reader refused (api/middleware/body-read.ts) as the problem it is answered with. */
function bodyReadProblem(refusal: BodyReadRefusal, tooLargeDetail?: string): ProblemError {
  if (refusal.status === 400)
    return new ProblemError('invalid_parameters', {
      errors: [{ detail: refusal.detail, code: refusal.rule, pointer: '' }],
    });
  if (refusal.status === 413)
    return new ProblemError('payload_too_large', tooLargeDetail ? { detail: tooLargeDetail } : {});
  return new ProblemError('unsupported_media_type', { detail: refusal.detail });
}

/**
 * What the reader refused, as the problem every interface answers (each error handler gives a
 * ProblemError its own shape); any other error goes on as it is.
 */
function bodyProblem(error: unknown, req: Request, res: Response, limit: number): unknown {
  if (error instanceof ProblemError) return error;
  const refusal = bodyReadRefusal(error, req);
  if (!refusal) return error;
  res.locals.refusalReason = refusal.reason;
  return bodyReadProblem(refusal, `The body is larger than the ${Math.floor(limit / 1024)} KiB this operation reads`);
}

/**
 * A JSON body parser with its interface's limit in bytes (of the decoded body, so a compressed
 * one cannot grow past it); mounted after authentication, so a stranger's body is never read.
 * Before the body is parsed its shape is bounded (domain/json-shape.ts): a body nested too deep or
 * holding too many keys is refused naming the limit, and nothing walks it.
 */
export function jsonBodyParser(limit: number): RequestHandler {
  const limits = jsonShapeLimits(limit);
  const parse = express.json({
    limit,
    type: JSON_TYPES,
    strict: true,
    verify: (_req, res, bytes) => {
      const violation = jsonShapeViolation(bytes, limits);
      if (!violation) return;
      (res as Response).locals.refusalReason = violation.rule;
      throw new ProblemError('invalid_parameters', {
        errors: [{ detail: violation.detail, code: violation.rule, pointer: '' }],
      });
    },
  });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => (error === undefined ? next() : next(bodyProblem(error, req, res, limit))));
  };
}

export const parseJsonBody = jsonBodyParser(DEFAULT_BODY_LIMIT);
