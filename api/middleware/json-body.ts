import express, { type RequestHandler } from 'express';
import { ProblemError } from '../../domain/problems.ts';

const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

const JSON_TYPES = ['application/json', 'application/*+json'];

/** Bodies are JSON or nothing: anything else is 415 before a handler sees it. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req.headers) && !req.is(JSON_TYPES)) {
    throw new ProblemError('unsupported_media_type', { detail: 'Send the body as application/json' });
  }
  next();
};

/** A JSON body parser with its interface's limit; mounted after authentication, so a stranger's body is never read. */
export const jsonBodyParser = (limit: string): RequestHandler =>
  express.json({ limit, type: JSON_TYPES, strict: true });

export const parseJsonBody = jsonBodyParser('1mb');
