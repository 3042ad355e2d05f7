import https from 'node:https';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import { createChannelClient, type ChannelClientOptions } from '../../clients/channel-kit/src/index.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { createWorker } from '../../app/worker.ts';
import { systemClock } from '../../domain/clock.ts';
import { startTestApi, type TestApi } from './api.ts';
import { platform } from './catalogue.ts';
import { onCleanup } from './cleanup.ts';
import { freshDatabase } from './database.ts';
import { adminContext } from './fixtures.ts';
import { startReceiver } from './receiver.ts';
import { devServerClient, uniqueTaskQueue } from './temporal.ts';
import { activityDeps } from './worker.ts';

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
 * The service as a channel meets it, in real time: the API over TLS, a worker that dispatches and
 * delivers webhooks (to an HTTPS receiver on this machine) and runs owner connect, PostgreSQL and
 * the Temporal dev server.
 */
export async function startKitService(name: string) {
  const { orm } = await freshDatabase();
  const temporal = await devServerClient();
  const taskQueue = uniqueTaskQueue(name);
  const receiver = await startReceiver();
  const ctx = adminContext(orm, temporal, systemClock, taskQueue);
  const api = await startTestApi({
    orm,
    temporal,
    clock: systemClock,
    env: {
      AUTH_FAILURE_LIMIT: '1000',
      WEBHOOK_ALLOW_LOCAL: 'true',
      WEBHOOK_CA_FILE: receiver.caFile,
      TEMPORAL_TASK_QUEUE: taskQueue,
    },
  });
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await createWorker({
    connection,
    namespace: 'default',
    taskQueue,
    deps: activityDeps(orm, {
      client: temporal,
      taskQueue,
      webhooks: { allowLocal: true, caFile: receiver.caFile },
    }),
  });
  const running = worker.run();
  onCleanup(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  return { api, ctx, orm, temporal, receiver, host: platform(api), fetch: fetchTrusting(api.ca) };
}
