import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import {
  ChannelSync,
  createChannelClient,
  isProblem,
  MemorySyncStore,
  OwnerConnectTokenError,
  verifyOwnerConnectToken,
  type ChannelClient,
  type OwnerConnectClaims,
  type Schema,
} from './kit.ts';
import { describeFailure, namingFailures, type AnyFetch } from './api-fetch.ts';
import { confirmedPage, confirmPage, homePage, refusedPage } from './pages.ts';
import { formatInstant, LANGUAGES, languageOf, type Language } from './texts.ts';
import { startSyncLoop } from './sync-loop.ts';
import { serialWork } from './work-queue.ts';
import { webhookReceiver } from './webhooks.ts';

type Owner = Schema<'Owner'>;

export interface ChannelAppOptions {
  /** The distribution API's base URL, e.g. `https://localhost:8443/api/v1/distribution`. */
  apiBaseUrl: string;
  /** This channel's API key (`svc_test_...`), with `read:catalog`. */
  apiKey: string;
  /** This channel's name: the token's `aud`. */
  channel: string;
  /** The token's expected `iss`: the API's origin. Default: the origin of `apiBaseUrl`. */
  issuer?: string;
  /**
   * The `fetch` to call the API with; default Node's own, which trusts a local service's
   * development certificate when Node is started with `NODE_EXTRA_CA_CERTS=.data/tls/localhost.crt`.
   */
  fetch?: AnyFetch;
  /**
   * Receive webhooks at `POST /webhooks`, verified with these secrets (the current one, and the
   * previous one during a rotation), and keep a copy of the catalogue: what they name is read, and
   * a periodic sync (sync-loop.ts) brings every list up to date.
   */
  webhookSecrets?: string[];
  /** Between two passes of the periodic sync; default 60 000 (60 s); 0: no periodic sync. */
  syncIntervalMs?: number;
  /** `limit` of each page the sync reads (1 to 500); default 100. */
  syncPageSize?: number;
  /** Serve HTTPS with this certificate (redirect URLs are https:// URLs); plain HTTP without it. */
  tls?: { cert: string; key: string };
  /** The address to listen on; default `127.0.0.1`. */
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  /** The signed-in account on this channel. A real channel signs the host in (or up) here. */
  account?: string;
  /** That account's time zone (IANA), which the confirmation's time is written in; default `UTC`. */
  timeZone?: string;
  log?: (line: string) => void;
}

/** A verified token waiting for the host's confirmation; kept server-side, never in the browser. */
interface Pending {
  token: string;
  claims: OwnerConnectClaims;
  owner: Owner;
  /** The host's language, from the token's `locale`. */
  language: Language;
  /** The service accepts the confirmation until 3600 s after `iat`. */
  until: number;
}

const PENDING_COOKIE = 'pending_connect';
const CONFIRMATION_WINDOW_SECONDS = 3600;

function cookie(req: Request, name: string): string | undefined {
  return (req.get('cookie') ?? '')
    .split(';')
    .map((part) => part.trim().split('='))
    .find(([key]) => key === name)?.[1];
}

function sameSecret(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * The host's language: the token's `locale` when the pages are written in it, else the browser's
 * `Accept-Language` (a page shown before any token is verified has only that), else English.
 */
function languageFor(req: Request, locale?: string): Language {
  const accepted = req.acceptsLanguages(...LANGUAGES);
  return languageOf(locale) ?? (accepted ? languageOf(accepted) : undefined) ?? 'en';
}

export async function startChannelApp(options: ChannelAppOptions) {
  const log = options.log ?? ((line: string) => console.log(line));
  const account = options.account ?? 'demo-host@channel.example';
  const timeZone = options.timeZone ?? 'UTC';
  // An unknown zone is refused at start (RangeError), not on a host's confirmation.
  formatInstant('en', new Date().toISOString(), timeZone);
  // Every call to the API: a failure before any answer names the request and its cause.
  const fetch = namingFailures(options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
  const client = createChannelClient({ baseUrl: options.apiBaseUrl, key: options.apiKey, fetch });
  // Every check of the contract's list but the last (`sub` an owner distributed to us, below).
  const verify = (token: string) =>
    verifyOwnerConnectToken(token, {
      baseUrl: options.apiBaseUrl,
      audience: options.channel,
      ...(options.issuer ? { issuer: options.issuer } : {}),
      fetch,
    });
  const pending = new Map<string, Pending>();
  /** Owner id → the account it is linked to (a real channel stores this in its database). */
  const connections = new Map<string, { account: string; connectedAt: string }>();
  const secure = options.tls !== undefined;

  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const send = (res: Response, status: number, html: string) => res.status(status).type('html').send(html);

  app.get('/', (_req, res) => send(res, 200, homePage(options.channel)));

  // The redirect URL: the service's hand-off page POSTs the form field `token` here.
  app.post('/owner-connect', form, async (req, res) => {
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string') return send(res, 400, refusedPage(languageFor(req), 'refused.no_token'));
    let claims: OwnerConnectClaims;
    try {
      claims = await verify(token);
    } catch (error) {
      if (!(error instanceof OwnerConnectTokenError)) throw error;
      log(`owner-connect token refused (${error.reason}): ${error.message}`);
      return send(res, 400, refusedPage(languageFor(req), 'refused.token'));
    }
    const language = languageFor(req, claims.locale);
    res.locals.language = language;
    // The last check of the list: `sub` is an owner distributed to this channel.
    const owner = await findOwner(client, claims.sub);
    if (!owner) return send(res, 400, refusedPage(language, 'refused.not_listed'));
    // The host would sign in or sign up here; this app has one account, already signed in.
    for (const [id, entry] of pending) if (entry.until < Date.now()) pending.delete(id);
    const pendingId = randomBytes(16).toString('base64url');
    pending.set(pendingId, {
      token,
      claims,
      owner,
      language,
      until: (claims.iat + CONFIRMATION_WINDOW_SECONDS) * 1000,
    });
    // The confirmation must come from this browser: the id is in a cookie and in the form.
    res.setHeader(
      'Set-Cookie',
      `${PENDING_COOKIE}=${pendingId}; Path=/owner-connect; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
    );
    return send(
      res,
      200,
      confirmPage({ language, channel: options.channel, account, displayName: owner.display_name, pendingId }),
    );
  });

  app.post('/owner-connect/confirm', form, async (req, res) => {
    const pendingId = (req.body as Record<string, unknown> | undefined)?.pending;
    if (typeof pendingId !== 'string' || !sameSecret(pendingId, cookie(req, PENDING_COOKIE)))
      return send(res, 403, refusedPage(languageFor(req), 'refused.other_browser'));
    const entry = pending.get(pendingId);
    pending.delete(pendingId);
    if (!entry || entry.until < Date.now()) return send(res, 400, refusedPage(languageFor(req), 'refused.expired'));
    const { language } = entry;
    res.locals.language = language;
    try {
      const { data: connection } = await client.PUT('/owners/{owner_id}/connection', {
        params: { path: { owner_id: entry.claims.sub } },
        body: { token: entry.token },
      });
      // A refusal is thrown as a ProblemError (below): an answer here is the connection.
      if (!connection) throw new Error('PUT /owners/{owner_id}/connection answered no body');
      connections.set(connection.owner_id, { account, connectedAt: connection.connected_at });
      log(`owner ${connection.owner_id} connected to ${account}`);
      return send(
        res,
        200,
        confirmedPage({
          language,
          channel: options.channel,
          displayName: entry.owner.display_name,
          connectedAt: connection.connected_at,
          timeZone,
        }),
      );
    } catch (error) {
      if (!isProblem(error)) throw error;
      log(`confirmation refused: ${error.message}`);
      return send(res, 400, refusedPage(language, 'refused.by_service', { code: error.code ?? String(error.status) }));
    }
  });

  // One copy of the catalogue, kept by the webhook receiver and the periodic sync alike.
  const store = options.webhookSecrets?.length ? new MemorySyncStore() : undefined;
  const sync = store
    ? new ChannelSync(client, {
        store,
        ...(options.syncPageSize ? { pageSize: options.syncPageSize } : {}),
        onAnomaly: (anomaly) => log(`sync anomaly: ${anomaly.message}`),
      })
    : undefined;
  // The catalogue work of both, one read at a time (work-queue.ts).
  const work = serialWork();
  if (sync) app.use(webhookReceiver({ sync, secrets: options.webhookSecrets!, work, log }).router);

  app.use((error: unknown, req: Request, res: Response, _next: express.NextFunction) => {
    log(`${req.method} ${req.path} failed: ${describeFailure(error)}`);
    const language = (res.locals.language as Language | undefined) ?? languageFor(req);
    send(res, 502, refusedPage(language, 'refused.unreachable'));
  });

  const server = secure
    ? https.createServer({ cert: options.tls!.cert, key: options.tls!.key }, app)
    : http.createServer(app);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const intervalMs = options.syncIntervalMs ?? 60_000;
  const loop = sync && intervalMs > 0 ? startSyncLoop({ sync, intervalMs, work, log }) : undefined;
  // A loopback or every-address listener is reached as localhost, the name the certificate holds.
  const local = ['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost'].includes(host);
  const url = `${secure ? 'https' : 'http'}://${local ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    /** Where it listens: the address and the port (the one the system chose, for port 0). */
    listening: { host, port },
    /** Register this as the channel's owner-connect redirect URL. */
    redirectUrl: `${url}/owner-connect`,
    connections,
    /** The copy of the catalogue the webhook receiver and the periodic sync keep, when it receives webhooks. */
    catalogue: store,
    close: () =>
      new Promise<void>((resolve) => {
        // A pass under way ends on its own (its log lines are dropped); none starts after this.
        void loop?.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type ChannelApp = Awaited<ReturnType<typeof startChannelApp>>;

/** The owner with this id as this channel sees it, or null (not distributed to us, withdrawn, unknown). */
async function findOwner(client: ChannelClient, ownerId: string): Promise<Owner | null> {
  // The contract has no read of one owner by id: page the list (bounded by the kit's iterator's end).
  for await (const owner of client.paginate('/owners', { params: { query: { limit: 500 } } })) {
    // Without updated_since the list holds whole records, never tombstones.
    if (owner.id === ownerId)
      return 'display_name' in owner && ['active', 'inactive'].includes(owner.status) ? owner : null;
  }
  return null;
}
