import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { etagMiddleware, MemoryEtagStore, type EtagStore } from './etag-cache.ts';
import type { paths } from './generated/schema.ts';
import { KEY_IN_CLEAR, requireHttps } from './https-only.ts';
import { pager, type Pager } from './pages.ts';
import { ProblemError } from './problem.ts';
import { retryingFetch, type RetryOptions } from './retry.ts';

export interface ChannelClientOptions {
  /** The interface's base, e.g. `https://api.example/api/v1/distribution`: `https:` only, or the client is not made. */
  baseUrl: string;
  /** The channel's key, `svc_live_…` or `svc_test_…`, sent as `Authorization: Bearer <key>`. */
  key: string;
  /** The `fetch` to send with (default `globalThis.fetch`): one that trusts a development CA, say. */
  fetch?: (input: Request) => Promise<Response>;
  /** Retries of 429 and 503 (see `RetryOptions`); `false` for none. */
  retries?: RetryOptions | false;
  /** Answer `GET`s from a 304 with what an earlier answer carried: `true` for an in-memory store. */
  etagCache?: EtagStore | boolean;
}

/**
 * The typed client: openapi-fetch's `GET`, `PUT`, `POST`, `DELETE` over the distribution
 * interface's paths, each answer typed from the description, plus `paginate` and `pages` over
 * every list. A refusal (status 400 or more) is thrown as a `ProblemError`, so `data` is there
 * whenever the call returns, but for a 204.
 */
export type ChannelClient = Client<paths, 'application/json'> & Pager;

/** Adds the key to every request. */
function bearer(key: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${key}`);
      return request;
    },
  };
}

/** Throws every answer of status 400 or more as a `ProblemError`. */
const problems: Middleware = {
  async onResponse({ response }) {
    if (response.status < 400) return undefined;
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: a proxy's page, kept as text.
    }
    throw new ProblemError(response.status, body, response.headers);
  },
};

/**
 * Every call of the kit goes through a client made here (`listen` and `ChannelSync` take one), so
 * this is where a base URL that is not `https:` is refused: before any request exists to carry the key.
 */
export function createChannelClient(options: ChannelClientOptions): ChannelClient {
  if (!options.key) throw new TypeError('createChannelClient: a key is needed');
  requireHttps(options.baseUrl, 'createChannelClient: baseUrl', KEY_IN_CLEAR);
  const base = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.retries === false ? base : retryingFetch(base, options.retries),
    // The interface never redirects: a redirect would come from something in between, and
    // following it could carry the key elsewhere.
    redirect: 'error',
    // Lists in a query are comma-separated (the description's `style: form, explode: false`).
    querySerializer: { array: { style: 'form', explode: false } },
  });
  // Registration order: answers pass them in reverse, so a kept 304 is a 200 before `problems` looks.
  client.use(bearer(options.key), problems);
  if (options.etagCache) {
    client.use(etagMiddleware(options.etagCache === true ? new MemoryEtagStore() : options.etagCache));
  }
  return Object.assign(client, pager(client));
}
