import { createChannelClient, type ChannelClientOptions } from '../../clients/channel-kit/src/index.ts';
import { fetchTrusting as kitFetchTrusting } from '../../clients/channel-kit/src/node.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from './api-bed.ts';
import type { TestApi } from './api.ts';
import { onCleanup } from './cleanup.ts';
import { channelWithKey } from './fixtures.ts';
import { startReceiver } from './receiver.ts';

/** Both shapes of fetch the kit calls: openapi-fetch's `(Request)` and jose's `(url, init)`. */
export type TestFetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The kit's `fetch` trusting exactly `ca` (Node's own fetch takes no CA option): what a channel's
 * fetch is on a deployment with a public certificate. Its connections close with the test file.
 */
export function fetchTrusting(ca: string): TestFetch {
  const fetch = kitFetchTrusting(ca);
  onCleanup(() => fetch.close());
  return fetch;
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

/**
 * The service as `listen` meets it: a channel (key with `read:catalog` and `read:ari`) with one
 * property distributed, whose log `change()` grows by one `property.updated`; `logEvents()` reads
 * the whole log and `logEnd()` the cursor after its last event, where a run stopped at the end
 * would have saved its position. `prefix` keeps the platform's references apart per file.
 */
export async function startListenBed(name: string, prefix: string) {
  const service = await startKitService(name);
  const made = await channelWithKey(service.ctx, { scopes: ['read:catalog', 'read:ari'] });
  const key = made.key.key;
  const client = kitClient(service.api, key, { fetch: service.fetch });
  const { host } = service;
  await host.organization(`${prefix}-org`);
  await host.owner(`${prefix}-own`, { organization: `${prefix}-org` });
  await host.location(`${prefix}-loc`, { organization: `${prefix}-org`, owner: `${prefix}-own` });
  await host.property(`${prefix}-p1`, { location: `${prefix}-loc`, owner: `${prefix}-own` });
  await host.distribute(`${prefix}-p1`, [made.channel.name]);
  let writes = 0;
  return {
    service,
    key,
    client,
    baseUrl: `${service.api.url}${DISTRIBUTION_BASE}`,
    change: async () => {
      writes++;
      await host.property(`${prefix}-p1`, {
        location: `${prefix}-loc`,
        owner: `${prefix}-own`,
        name: { ro: `Ascultat ${writes}`, en: `Listened ${writes}` },
      });
    },
    logEvents: async () => {
      const events = [];
      for await (const event of client.paginate('/events')) events.push(event);
      return events;
    },
    logEnd: async () => {
      let cursor: string | undefined;
      for await (const page of client.pages('/events', { params: { query: { limit: 500 } } }))
        cursor = page.next_cursor;
      return cursor!;
    },
  };
}
