import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { signedHeaders } from '../../clients/channel-kit/src/index.ts';
import type { AnyFetch } from '../../examples/channel-app/api-fetch.ts';
import { startChannelApp, type ChannelApp, type ChannelAppOptions } from '../../examples/channel-app/server.ts';
import { onCleanup } from './cleanup.ts';

/**
 * The reference channel app (examples/channel-app), unmodified, and four channels broken around it
 * for `channel-kit certify` to fail, each on one rule: a front before its receiver that signs
 * every body again with the real secret (it accepts any signature), a front that answers 15 s
 * late, or a `fetch` under its client that repeats a 429 after a second whatever `Retry-After`
 * says, or that answers every read of availability with an empty page without asking the service.
 */

export type ChannelVariant =
  'reference' | 'accepts_any_signature' | 'answers_late' | 'ignores_retry_after' | 'never_rereads_availability';

/** The variants with a front before the app's receiver. */
export const FRONTED: readonly ChannelVariant[] = ['accepts_any_signature', 'answers_late'];

/** The rule each broken variant fails. */
export const BROKEN_RULE: Record<Exclude<ChannelVariant, 'reference'>, string> = {
  accepts_any_signature: 'refuses_wrong_secret',
  answers_late: 'answers_each_event_type',
  ignores_retry_after: 'honours_retry_after',
  never_rereads_availability: 'rereads_announced_range',
};

/** How late the late front answers: beyond the receiver rules' 10 s. */
export const LATE_ANSWER_MS = 15_000;

const requestOf = (input: Request | string | URL, init?: RequestInit) =>
  input instanceof Request ? input : new Request(input, init);

/**
 * A `fetch` that ignores `Retry-After`: a 429 is sent again after about `waitMs` (a second), up
 * to `times` more, before the answer reaches the caller (whose own retries then do what they do).
 */
export function ignoringRetryAfter(fetch: AnyFetch, options: { waitMs?: number; times?: number } = {}): AnyFetch {
  const waitMs = options.waitMs ?? 1000;
  const times = options.times ?? 5;
  return async (input, init) => {
    const request = requestOf(input, init);
    for (let attempt = 0; ; attempt += 1) {
      const response = await fetch(request.clone());
      if (response.status !== 429 || attempt >= times) return response;
      await response.body?.cancel().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };
}

/** Whether a request reads availability: `GET /availability` or `GET /properties/{id}/availability`. */
export function readsAvailability(request: Request): boolean {
  const { pathname } = new URL(request.url);
  return request.method === 'GET' && /\/(?:availability|properties\/[^/]+\/availability)$/.test(pathname);
}

/** A `fetch` that answers every read of availability with an empty last page, asking nothing of the service. */
export function neverReadingAvailability(fetch: AnyFetch): AnyFetch {
  return (input, init) => {
    const request = requestOf(input, init);
    if (readsAvailability(request)) return Promise.resolve(Response.json({ data: [], next_cursor: null }));
    return fetch(request);
  };
}

export interface Front {
  url: string;
  close: () => Promise<void>;
}

/**
 * An HTTPS server before `target` (trusted by `ca`): each request is forwarded at once, with its
 * headers as `rewrite` leaves them, and its answer given back `delayMs` after the request came.
 */
export async function startFront(options: {
  target: string;
  ca: string;
  tls: { cert: string; key: string };
  rewrite?: (headers: http.IncomingHttpHeaders, body: Buffer) => http.IncomingHttpHeaders;
  delayMs?: number;
  /** 0 (default): any free port. */
  port?: number;
}): Promise<Front> {
  const server = https.createServer(options.tls, (req, res) => {
    const arrived = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const { host: _host, connection: _connection, ...rest } = req.headers;
      const headers = {
        ...(options.rewrite ? options.rewrite(rest, body) : rest),
        'content-length': String(body.length),
      };
      const forwarded = https.request(
        new URL(req.url!, options.target),
        { method: req.method, headers, ca: options.ca },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            setTimeout(
              () => {
                if (res.destroyed) return;
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                res.end(Buffer.concat(parts));
              },
              Math.max(0, arrived + (options.delayMs ?? 0) - Date.now()),
            );
          });
        },
      );
      forwarded.on('error', () => {
        if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  onCleanup(close);
  return { url: `https://localhost:${(server.address() as AddressInfo).port}`, close };
}

/** Headers with the body signed again with `secret`, under the delivery's own id and timestamp. */
export function resigned(secret: string) {
  return (headers: http.IncomingHttpHeaders, body: Buffer): http.IncomingHttpHeaders => {
    const id = String(headers['webhook-id'] ?? '');
    const seconds = Number(headers['webhook-timestamp']);
    if (!id || !Number.isFinite(seconds)) return headers;
    return { ...headers, ...signedHeaders([secret], id, new Date(seconds * 1000), body.toString()) };
  };
}

export interface ChannelUnderTest {
  app: ChannelApp;
  /** Where the endpoint under test points: the app's receiver, or the front before it. */
  webhookUrl: string;
  redirectUrl: string;
}

/**
 * The reference app as `variant` has it. `options.tls` is required (redirect URLs are https://)
 * and serves the fronts too; `ca` is what trusts it; `webhookSecrets[0]` is the endpoint's secret.
 * `port` and `frontPort` let the endpoint be registered (and its secret known) before they listen.
 */
export async function startChannelVariant(
  variant: ChannelVariant,
  options: ChannelAppOptions & { tls: { cert: string; key: string }; ca: string; fetch: AnyFetch; frontPort?: number },
): Promise<ChannelUnderTest> {
  const { ca, frontPort, ...appOptions } = options;
  const port = frontPort ?? 0;
  const fetch =
    variant === 'ignores_retry_after'
      ? ignoringRetryAfter(options.fetch)
      : variant === 'never_rereads_availability'
        ? neverReadingAvailability(options.fetch)
        : options.fetch;
  const app = await startChannelApp({ ...appOptions, fetch });
  onCleanup(() => app.close());
  const front =
    variant === 'accepts_any_signature'
      ? await startFront({
          target: app.url,
          ca,
          tls: options.tls,
          rewrite: resigned(options.webhookSecrets![0]!),
          port,
        })
      : variant === 'answers_late'
        ? await startFront({ target: app.url, ca, tls: options.tls, delayMs: LATE_ANSWER_MS, port })
        : undefined;
  return { app, webhookUrl: `${front?.url ?? app.url}/webhooks`, redirectUrl: app.redirectUrl };
}
