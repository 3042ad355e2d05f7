import type { Middleware } from 'openapi-fetch';

/** A `GET` answer kept with its validator. */
export interface CachedAnswer {
  etag: string;
  body: string;
  headers: [string, string][];
}

/**
 * Where answers are kept, by request URL. Every key of one channel reads the same records, so a
 * store may be shared by the clients of one channel (two keys during a rotation), not of two.
 */
export interface EtagStore {
  get(url: string): CachedAnswer | undefined | Promise<CachedAnswer | undefined>;
  set(url: string, answer: CachedAnswer): void | Promise<void>;
}

/** In memory, the least recently used answer dropped past `maxEntries` (default 500). */
export class MemoryEtagStore implements EtagStore {
  readonly #entries = new Map<string, CachedAnswer>();
  readonly #max: number;
  constructor(options: { maxEntries?: number } = {}) {
    this.#max = options.maxEntries ?? 500;
  }
  get(url: string): CachedAnswer | undefined {
    const found = this.#entries.get(url);
    if (found) {
      this.#entries.delete(url);
      this.#entries.set(url, found);
    }
    return found;
  }
  set(url: string, answer: CachedAnswer): void {
    this.#entries.delete(url);
    this.#entries.set(url, answer);
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

// Describe the body that was kept, not the wire: it is stored decoded and whole.
const NOT_KEPT = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection']);

/**
 * Sends the kept `ETag` as `If-None-Match` on a `GET` and answers a 304 with the kept body, as a
 * 200 carrying the fresh answer's headers (`Request-Id`, `RateLimit-*`) over the kept ones. Every
 * successful `GET` of the interface carries a weak `ETag`. A request that sets `If-None-Match`
 * itself is left alone.
 */
export function etagMiddleware(store: EtagStore): Middleware {
  const asked = new Map<string, CachedAnswer>();
  return {
    async onRequest({ request, id }) {
      if (request.method !== 'GET' || request.headers.has('if-none-match')) return undefined;
      const kept = await store.get(request.url);
      if (!kept) return undefined;
      asked.set(id, kept);
      request.headers.set('if-none-match', kept.etag);
      return request;
    },
    async onResponse({ request, response, id }) {
      const kept = asked.get(id);
      asked.delete(id);
      if (request.method !== 'GET') return undefined;
      if (response.status === 304 && kept) {
        const headers = new Headers(kept.headers);
        response.headers.forEach((value, name) => {
          if (!NOT_KEPT.has(name)) headers.set(name, value);
        });
        return new Response(kept.body, { status: 200, statusText: 'OK', headers });
      }
      const etag = response.headers.get('etag');
      if (response.status !== 200 || etag === null) return undefined;
      const headers: [string, string][] = [];
      response.headers.forEach((value, name) => {
        if (!NOT_KEPT.has(name)) headers.push([name, value]);
      });
      await store.set(request.url, { etag, body: await response.clone().text(), headers });
      return undefined;
    },
    onError({ id }) {
      asked.delete(id);
      return undefined;
    },
  };
}
