import https from 'node:https';

/** A `fetch` both openapi-fetch (`(Request)`) and jose (`(url, init)`) call, with a `close()`. */
export interface TrustingFetch {
  (input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/**
 * A `fetch` over `node:https` that trusts exactly `ca` (PEM) besides nothing else, for a service
 * with a development certificate: Node's own `fetch` takes no CA option (start Node with
 * `NODE_EXTRA_CA_CERTS=<file>` to trust one for every call instead). Connections are kept alive
 * until `close()`. Plain `http:` addresses are sent as they are. It follows no redirect.
 */
export function fetchTrusting(ca: string | Uint8Array): TrustingFetch {
  const agent = new https.Agent({ ca: typeof ca === 'string' ? ca : Buffer.from(ca), keepAlive: true });
  const send = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    if (new URL(request.url).protocol !== 'https:') return globalThis.fetch(request);
    const body =
      request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body !== undefined) headers['content-length'] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(
        request.url,
        { method: request.method, headers, agent, signal: request.signal },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              // Each `Set-Cookie` stays a header of its own (`getSetCookie()`): joined, dates split them.
              for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value])
                answer.append(name, each);
            }
            const status = res.statusCode ?? 502;
            // A Response may carry no body with 204 or 304.
            const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(payload, { status, headers: answer }));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
  return Object.assign(send, { close: () => agent.destroy() });
}
