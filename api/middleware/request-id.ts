import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Every response carries a fresh `Request-Id`; problem bodies repeat it as `request_id`. */
export const requestId: RequestHandler = (_req, res, next) => {
  res.setHeader('Request-Id', randomUUID());
  next();
};
