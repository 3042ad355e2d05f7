import { beforeAll, expect, test } from 'vitest';
import { DISTRIBUTION_BASE } from '../../api/distribution/index.ts';
import { newId, newWebhookSecret, signedHeaders } from '../../clients/channel-kit/src/index.ts';
import { startChannelApp, type ChannelApp } from '../../examples/channel-app/server.ts';
import { apiTestBed, type ApiTestBed } from '../support/api-bed.ts';
import { fetchTrusting } from '../support/channel-kit.ts';
import { onCleanup } from '../support/cleanup.ts';
import type { TestClock } from '../support/clock.ts';

/**
 * The reference app's periodic sync: with webhooks on it walks every list page by page with its
 * cursor, a full listing first and then only the changes since (`updated_since`), into the store
 * its webhook receiver shares; a withdrawn property's nights are not read again; it stops on close.
 */

let bed: ApiTestBed<TestClock>;
let app: ChannelApp;
let channel: string;
const secret = newWebhookSecret();
const appLog: string[] = [];
/** The path and query of every request the app made, in order. */
const requests: string[] = [];
let closed = false;

beforeAll(async () => {
  bed = await apiTestBed();
  const made = await bed.channel({ scopes: ['read:catalog', 'read:ari'] });
  channel = made.channel.name;
  const { host } = bed;
  await host.organization('cas-org');
  await host.owner('cas-own', { organization: 'cas-org' });
  await host.location('cas-loc', { organization: 'cas-org', owner: 'cas-own' });
  for (const ref of ['cas-p1', 'cas-p2']) {
    await host.property(ref, { location: 'cas-loc', owner: 'cas-own' });
    await host.distribute(ref, [channel]);
  }
  const trusting = fetchTrusting(bed.api.ca);
  const base = `${bed.api.url}${DISTRIBUTION_BASE}`;
  app = await startChannelApp({
    apiBaseUrl: base,
    apiKey: made.key.key,
    channel,
    // A channel's own fetch, wrapped to see what it asks for.
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (closed) requests.push(`after close: ${url}`);
      else requests.push(decodeURIComponent(url.slice(base.length)));
      return trusting(input, init);
    },
    webhookSecrets: [secret],
    syncIntervalMs: 300,
    syncPageSize: 1,
    log: (line) => appLog.push(line),
  });
  onCleanup(() => app.close());
});

async function until(predicate: () => boolean, what: () => string): Promise<void> {
  for (let i = 0; i < 150 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(predicate(), what()).toBe(true);
}

test('the first pass lists everything page by page with cursors; later passes ask for changes since', async () => {
  await until(
    () => requests.some((r) => r.startsWith('/properties?') && r.includes('updated_since=')),
    () => requests.join('\n'),
  );
  expect(app.catalogue!.visible('properties').size).toBe(2);
  const properties = requests.filter((r) => r.startsWith('/properties?'));
  // Page one, then the cursor of its `next_cursor` with the same query, then the changes since.
  expect(properties[0]).toBe('/properties?limit=1');
  expect(properties[1]).toMatch(/^\/properties\?limit=1&cursor=\S+$/);
  expect(properties.find((r) => r.includes('updated_since='))).toMatch(
    /^\/properties\?limit=1&updated_since=\d{4}-\d\d-\d\dT[\d:.]+Z$/,
  );
  expect(appLog).toContainEqual(expect.stringMatching(/^sync: \d+ pages; locations 1 of 1 applied \(full listing\)/));
});

test('a property withdrawn is taken down by the sync, and an availability.updated naming it then is not read', async () => {
  const shown = [...app.catalogue!.visible('properties').keys()];
  await bed.host.distribute('cas-p2', []);
  await until(
    () => app.catalogue!.visible('properties').size === 1,
    () => appLog.join('\n'),
  );
  const gone = [...app.catalogue!.all('properties').values()].find((p) => p.status === 'withdrawn');
  expect(shown).toContain(gone?.id);

  const event = newId('evt_');
  const body = JSON.stringify({
    id: event,
    type: 'availability.updated',
    created_at: new Date().toISOString(),
    data: { object: 'property', id: gone!.id, from: '2026-12-01', to: '2026-12-05' },
  });
  const answer = await fetch(`${app.url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedHeaders([secret], newId('msg_'), new Date(), body) },
    body,
  });
  expect(answer.status).toBe(204);
  await until(
    () => appLog.some((line) => line.startsWith(`webhook ${event}:`)),
    () => appLog.join('\n'),
  );
  expect(appLog).toContain(`webhook ${event}: ignored: property ${gone!.id} is withdrawn`);
  expect(requests.filter((r) => r.startsWith('/availability') || r.includes(`/properties/${gone!.id}/`))).toEqual([]);
});

test('closing the app stops the loop', async () => {
  await app.close();
  closed = true;
  const before = requests.length;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(requests.slice(before)).toEqual([]);
});
