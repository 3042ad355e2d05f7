import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { verifyWebhook, WebhookVerificationError } from '../../clients/channel-kit/src/index.ts';
import { onCleanup } from './cleanup.ts';

/**
 * Webhook receivers on loopback written as channels write them, for `check-receiver`: Express
 * taking the raw body, as the kit's README shows; closed with the test file.
 */

export type Handler = (req: Request<object, unknown, Buffer>, res: Response) => void | Promise<void>;

/** A receiver at `http://127.0.0.1:<port>/hooks` answering with `handler`; a handler that throws answers 500. */
export async function expressReceiver(handler: Handler): Promise<string> {
  const app = express();
  app.post('/hooks', express.raw({ type: '*/*' }), (req, res) => {
    Promise.resolve(handler(req as Request<object, unknown, Buffer>, res)).catch(() => {
      if (!res.headersSent) res.sendStatus(500);
    });
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  onCleanup(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

export const rawBody = (req: Request<object, unknown, Buffer>) =>
  Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);

export function header(req: { headers: Request['headers'] }, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

/** Keeps every rule: verifies with the kit against `secrets`, answers at once, deduplicates on webhook-id. */
export function verifying(secrets: string[]): Handler {
  const seen = new Set<string>();
  return (req, res) => {
    try {
      const event = verifyWebhook(rawBody(req), req.headers, secrets);
      if (!seen.has(event.id)) seen.add(event.id); // the work would be queued here, once
      res.sendStatus(204);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      res.status(400).send(error.reason);
    }
  };
}

/** The HMAC of the contract, computed by hand, so that broken receivers can leave one rule out. */
export function hmacMatches(secret: string, req: Request<object, unknown, Buffer>): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${header(req, 'webhook-id')}.${header(req, 'webhook-timestamp')}.${rawBody(req).toString()}`;
  const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'));
  return header(req, 'webhook-signature')
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const given = Buffer.from(signature ?? '');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
