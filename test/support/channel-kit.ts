import https from 'node:https';
import { createChannelClient, type ChannelClientOptions } from '../../clients/channel-kit/src/index.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from './api-bed.ts';
import type { TestApi } from './api.ts';
import { onCleanup } from './cleanup.ts';
import { startReceiver } from './receiver.ts';

/** Both shapes of fetch the kit calls: openapi-fetch's `(Request)` and jose's `(url, init)`. */
export type TestFetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` over node:https that trusts exactly `ca` (Node's own fetch takes no CA option): what
 * a channel's fetch is on a deployment with a public certificate. Connections are kept alive and
 * closed with the test file. It follows no redirect.
 */
export function fetchTrusting(ca: string): TestFetch {
  const agent = new https.Agent({ ca, keepAlive: true });
  onCleanup(() => agent.destroy());
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
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
              if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            const status = res.statusCode ?? 502;
            // A Response may not carry a body with 204 or 304.
            resolve(
              new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
                status,
                headers: answer,
              }),
            );
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}

/** The kit's client on the test's service, with the channel's `key`. */
export function kitClient(
  api: TestApi,
  key: string,
  options: Omit<ChannelClientOptions, 'baseUrl' | 'key'> & { fetch?: TestFetch } = {},
) {
  return createChannelClient({
    baseUrl: `${api.url}${DISTRIBUTION_BASE}`,
    key,
    ...options,
    fetch: options.fetch ?? fetchTrusting(api.ca),
  });
}

/**
 * The service as a channel meets it, in real time: the shared test bed (api-bed.ts) with its
 * worker, which dispatches and delivers webhooks to an HTTPS receiver on this machine and runs
 * owner connect; and a fetch that trusts the API's certificate.
 */
export async function startKitService(name: string) {
  const receiver = await startReceiver();
  const bed = await apiTestBed({ clock: systemClock, taskQueue: name, receiver, worker: true });
  return { ...bed, receiver, fetch: fetchTrusting(bed.api.ca) };
}
