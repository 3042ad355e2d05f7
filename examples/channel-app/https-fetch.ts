import http from 'node:http';
import https from 'node:https';

/**
 * A `fetch` that trusts one extra certificate authority: the self-signed certificate of a local
 * development service (`npm start` writes it to `.data/tls/localhost.crt`). Node's built-in fetch
 * takes no CA option, so this one speaks node:https and answers a standard `Response`. With no CA
 * the built-in fetch is used. It follows no redirect.
 */
export type Fetch = (
  url: string,
  init?: { method?: string; headers?: Headers | Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<Response>;

export function fetchTrusting(ca: string | undefined): Fetch {
  if (ca === undefined) return (url, init) => fetch(url, { ...init, redirect: 'manual' });
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const headers =
        init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : { ...init.headers };
      if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
      const client = target.protocol === 'https:' ? https : http;
      const req = client.request(target, { method: init.method ?? 'GET', headers, ca, signal: init.signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const status = res.statusCode ?? 502;
          // A Response may not carry a body with 204 or 304.
          resolve(
            new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: answer }),
          );
        });
      });
      req.on('error', reject);
      req.end(init.body);
    });
}
