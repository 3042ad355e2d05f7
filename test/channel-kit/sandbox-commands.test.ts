import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { AdminContext } from '../../admin/context.ts';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { createChannelClient } from '../../clients/channel-kit/src/index.ts';
import { logs, type SandboxRequest } from '../../clients/channel-kit/src/sandbox-commands.ts';
import { fetchTrusting } from '../../clients/channel-kit/src/trusting-fetch.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import type { TestClock } from '../support/clock.ts';
import { onCleanup } from '../support/cleanup.ts';
import { channelWithKey } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/** `channel-kit trigger` and `channel-kit logs` as a developer runs them, against a sandbox over TLS. */

const CLI = path.resolve(import.meta.dirname, '../../clients/channel-kit/src/cli.ts');
let api: TestApi;
let ctx: AdminContext;
let clock: TestClock;
let receiver: Receiver;
let ca: string;
let baseUrl: string;

beforeAll(async () => {
  receiver = await startReceiver();
  ({ api, ctx, clock } = await apiTestBed({ receiver }));
  ca = path.join(await mkdtemp(path.join(os.tmpdir(), 'channel-kit-ca-')), 'localhost.crt');
  await writeFile(ca, api.ca);
  baseUrl = `${api.url}${DISTRIBUTION_BASE}`;
});

const kit = (key: string, ...args: string[]) =>
  runNode(CLI, [...args, '--base-url', baseUrl, '--ca', ca], { DISTRIBUTION_API_KEY: key });

/** Requests are recorded once answered: wait until the log holds this one. */
async function recorded(key: string, requestId: string): Promise<void> {
  for (let tries = 0; tries < 50; tries += 1) {
    const res = await api.call('GET', `${DISTRIBUTION_BASE}/sandbox/requests?limit=100`, { key });
    if ((res.json.data as { request_id: string }[]).some((r) => r.request_id === requestId)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${requestId} was never recorded`);
}

describe('channel-kit trigger', () => {
  test('prints each event the trigger produced and the cursor to read them from', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const { code, stdout, stderr } = await kit(key.key, 'trigger', 'property.withdrawn');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('property.'))).toEqual([
      expect.stringMatching(/^property\.distributed +evt_\S+ {2}property prp_\S+ v\d+$/),
      expect.stringMatching(/^property\.withdrawn +evt_\S+ {2}property prp_\S+ v\d+$/),
    ]);
    expect(lines.at(-1)).toMatch(/^Read them with GET \/events\?cursor=\S+$/);
  });

  test('an unknown type is refused with the valid ones, exit 1', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const { code, stderr } = await kit(key.key, 'trigger', 'property.exploded');
    expect(code).toBe(1);
    expect(stderr).toContain('invalid_parameters');
    expect(stderr).toContain('availability.updated');
  });
});

describe('channel-kit logs', () => {
  test('one line per request, so a refusal explains itself: method, path, status, code, request id', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const refused = await api.call('GET', `${DISTRIBUTION_BASE}/webhooks`, { key: key.key });
    await recorded(key.key, refused.headers['request-id']!);
    const { code, stdout } = await kit(key.key, 'logs', '--status', '4xx');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\S+Z {2}GET {5}${DISTRIBUTION_BASE}/webhooks {2}403 {2}insufficient_scope {2}${refused.headers['request-id']!} {2}1u \\d+ms$`,
        ),
      ),
    ]);
  });

  test('--follow prints requests as they are recorded, each once, leaving out its own reads', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const trusting = fetchTrusting(api.ca);
    onCleanup(() => trusting.close());
    const client = createChannelClient({ baseUrl, key: key.key, fetch: trusting });
    const seen: SandboxRequest[] = [];
    const controller = new AbortController();
    const following = logs(client, {
      follow: true,
      pollMs: 50,
      signal: controller.signal,
      onRequest: (request) => seen.push(request),
    });
    const ids: string[] = [];
    for (const path of ['/channel', '/webhooks', '/channel'])
      ids.push((await api.call('GET', `${DISTRIBUTION_BASE}${path}`, { key: key.key })).headers['request-id']!);
    for (let tries = 0; tries < 100 && seen.length < ids.length; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await following;
    // In the order their records land: each is written after its answer, so two close requests'
    // records may land in either order.
    expect(seen.map((request) => request.request_id).sort()).toEqual([...ids].sort());
  });

  test('--follow stopped while a read is under way resolves with what it printed, as between reads', async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog'] });
    const trusting = fetchTrusting(api.ca);
    onCleanup(() => trusting.close());
    const client = createChannelClient({ baseUrl, key: key.key, fetch: trusting });
    const controller = new AbortController();
    const following = logs(client, { follow: true, signal: controller.signal, onRequest: () => undefined });
    controller.abort();
    await expect(following).resolves.toBe(0);
  });

  test("--follow prints a request whose record lands seconds after its timestamp, once a later request's was printed", async () => {
    const { key } = await channelWithKey(ctx, { scopes: ['read:catalog', 'manage:webhooks'] });
    const call = (method: string, path: string, body?: unknown) =>
      api.call(method, `${DISTRIBUTION_BASE}${path}`, { key: key.key, ...(body === undefined ? {} : { body }) });
    expect((await call('POST', '/webhooks', { url: `${receiver.url}/late`, events: ['property.*'] })).status).toBe(201);
    const trusting = fetchTrusting(api.ca);
    onCleanup(() => trusting.close());
    const client = createChannelClient({ baseUrl, key: key.key, fetch: trusting });
    const seen: string[] = [];
    const controller = new AbortController();
    const following = logs(client, {
      follow: true,
      pollMs: 50,
      signal: controller.signal,
      onRequest: (request) => seen.push(request.request_id),
    });
    const printed = async (requestId: string) => {
      for (let tries = 0; tries < 60 && !seen.includes(requestId); tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      return seen.includes(requestId);
    };
    try {
      // The ping waits on the held receiver: its request, received now, is recorded once answered.
      receiver.hold();
      const arrived = receiver.received.length;
      const slow = call('POST', '/sandbox/triggers', { type: 'webhook.ping' });
      await receiver.waitFor(arrived + 1);
      // Meanwhile a request 5 s later is answered, recorded and printed.
      clock.advance(5000);
      const later = (await call('GET', '/channel')).headers['request-id']!;
      expect(await printed(later)).toBe(true);
      receiver.release();
      const ping = await slow;
      expect(ping.status, ping.text).toBe(200);
      expect(await printed(ping.headers['request-id']!)).toBe(true);
    } finally {
      receiver.release();
      controller.abort();
      await following;
    }
  });
});
