import { createChannelClient, type ChannelClientOptions } from '../../clients/channel-kit/src/index.ts';
import { fetchTrusting as kitFetchTrusting } from '../../clients/channel-kit/src/node.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { systemClock } from '../../domain/clock.ts';
import { apiTestBed } from './api-bed.ts';
import type { TestApi } from './api.ts';
import { onCleanup } from './cleanup.ts';
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
