import express, { type RequestHandler } from 'express';
import { ProblemError } from '../../domain/problems.ts';

const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** Bodies are JSON or nothing: anything else is 415 before a handler sees it. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req.headers) && !req.is(['application/json', 'application/*+json'])) {
    throw new ProblemError('unsupported_media_type', { detail: 'Send the body as application/json' });
  }
  next();
};

export const parseJsonBody = express.json({ limit: '1mb', type: ['application/json', 'application/*+json'], strict: true });
