import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { updateChannel } from '../../admin/channels.ts';
import { systemClock } from '../../domain/clock.ts';
import { startChannelApp, type ChannelApp } from '../../examples/channel-app/server.ts';
import { loadTlsMaterial } from '../../infra/tls.ts';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { launchChromium, keepScreenshot } from '../support/browser.ts';
import { onCleanup } from '../support/cleanup.ts';
import { fetchTrusting } from '../support/channel-kit.ts';
import { hostLink } from '../support/host-pages.ts';

// Owner connect end to end, in real time, in a real headless Chromium: the platform opens the
// host pages, the host presses Connect, the service's hand-off page POSTs the token to the
// reference channel app (examples/channel-app, HTTPS on loopback), which verifies it against the
// served JWKS, shows the owner and, once the host confirms, confirms with the channel's key. The
// connection is then seen where a channel reads it: GET /owners and the owner.updated event.

const BASE = '/api/v1/distribution';
const ORIGIN = 'https://distribution.test';
let api: TestApi;
let browser: Browser;
let channelApp: ChannelApp;
let channel: string;
let key: string;
const appLog: string[] = [];

beforeAll(async () => {
  const bed = await apiTestBed({
    clock: systemClock,
    env: { PUBLIC_ORIGIN: ORIGIN },
    taskQueue: 'e2e-owner-connect',
    worker: true,
  });
  const { ctx, host } = bed;
  api = bed.api;

  const made = await bed.channel({ scopes: ['read:catalog'] });
  channel = made.channel.name;
  key = made.key.key;
  // The reference app serves HTTPS (redirect URLs are https://) with the test service's certificate
  // for localhost, and trusts that certificate for the API.
  const tls = await loadTlsMaterial({ dataDir: api.config.dataDir });
  channelApp = await startChannelApp({
    apiBaseUrl: `${api.url}${BASE}`,
    apiKey: key,
    channel,
    issuer: ORIGIN,
    fetch: fetchTrusting(api.ca),
    tls: { cert: tls.cert, key: tls.key },
    log: (line) => appLog.push(line),
  });
  onCleanup(() => channelApp.close());
  await updateChannel(ctx, { name: channel, redirectUrl: channelApp.redirectUrl });

  await host.organization('e2e-oc-org');
  await host.owner('e2e-oc-own', { organization: 'e2e-oc-org', display_name: 'Ana Popescu' });
  await host.location('e2e-oc-loc', { organization: 'e2e-oc-org', owner: 'e2e-oc-own' });
  await host.property('e2e-oc-prp', { location: 'e2e-oc-loc', owner: 'e2e-oc-own' });
  await host.distribute('e2e-oc-prp', [channel]);
  browser = await launchChromium();
}, 180_000);

test('a host connects an owner to the reference channel app: overview, Connect, the app verifies and confirms, the channel sees connected_at and owner.updated', async () => {
  const owners = await api.call('GET', `${BASE}/owners`, { key });
  const owner = owners.json.data[0];
  expect(owner).toMatchObject({ display_name: 'Ana Popescu', connected_at: null });

  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB' });
  onCleanup(() => context.close());
  const page = await context.newPage();
  // The platform's link names the public origin; the test service listens on its own port.
  const link = await hostLink(api, 'e2e-oc-org', 'en');
  await page.goto(`${api.url}${link.path}`);
  expect(new URL(page.url()).pathname).toBe('/host/');
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Owners and channels');
  expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('Ana Popescu');
  const row = page.locator(`tr[data-channel="${channel}"]`);
  expect(await row.getAttribute('data-state')).toBe('not-connected');
  expect(await row.locator('td').first().textContent()).toBe('Not connected');
  await keepScreenshot(page, 'owner-connect', '01-host-owners-not-connected');

  // The hand-off page submits itself (its script allowed by nonce) and the browser lands on the app.
  const handedOff = page.waitForRequest(
    (request) => request.url() === channelApp.redirectUrl && request.method() === 'POST',
  );
  await row.getByRole('button', { name: /^Connect/ }).click();
  const posted = await handedOff;
  await page.waitForURL(channelApp.redirectUrl);
  const token = new URLSearchParams(posted.postData() ?? '').get('token')!;
  expect(decodeJwt(token)).toMatchObject({ iss: ORIGIN, aud: channel, sub: owner.id, locale: 'en' });
  expect(await page.locator('#owner strong').textContent()).toBe('Ana Popescu');
  await keepScreenshot(page, 'owner-connect', '02-channel-app-confirm');

  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.locator('#result').waitFor();
  const connectedAt = await page.locator('#result').getAttribute('data-connected-at');
  expect(connectedAt, appLog.join('\n')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  await keepScreenshot(page, 'owner-connect', '03-channel-app-connected');

  const after = (await api.call('GET', `${BASE}/owners`, { key })).json.data[0];
  expect(after).toMatchObject({ id: owner.id, connected_at: connectedAt });
  expect(after.version).toBeGreaterThan(owner.version);
  const events = (await api.call('GET', `${BASE}/events?limit=500`, { key })).json.data;
  expect(
    events
      .filter((e: { type: string; data: { id: string } }) => e.type === 'owner.updated' && e.data.id === owner.id)
      .at(-1)?.data.version,
  ).toBe(after.version);
  expect(channelApp.connections.get(owner.id)?.connectedAt).toBe(connectedAt);

  // Back on the host pages, the owner shows connected on that channel.
  await page.goto(`${api.url}/host/`);
  expect(await page.locator(`tr[data-channel="${channel}"]`).getAttribute('data-state')).toBe('connected');
  expect(await page.locator(`tr[data-channel="${channel}"] time`).getAttribute('datetime')).toBe(connectedAt);
  await keepScreenshot(page, 'owner-connect', '04-host-owners-connected');
});

test('the reference app refuses the same token posted a second time (jti replay) and binds nothing', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  onCleanup(() => context.close());
  const page = await context.newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'e2e-oc-org')).path}`);
  const handedOff = page.waitForRequest(
    (request) => request.url() === channelApp.redirectUrl && request.method() === 'POST',
  );
  await page.locator(`tr[data-channel="${channel}"]`).getByRole('button').click();
  const token = new URLSearchParams((await handedOff).postData() ?? '').get('token')!;
  await page.waitForURL(channelApp.redirectUrl);
  expect(await page.getByRole('button', { name: 'Confirm' }).count()).toBe(1);

  // The same token replayed by a second POST of the form (another tab, or someone who copied it).
  const replay = await context.request.post(channelApp.redirectUrl, { form: { token } });
  expect(replay.status()).toBe(400);
  expect(await replay.text()).toContain('This connection link cannot be used');
  expect(appLog.some((line) => line.startsWith('owner-connect token refused (replayed)'))).toBe(true);
});

test('with scripts off, the hand-off page shows its button and pressing it reaches the app with the token', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, javaScriptEnabled: false });
  onCleanup(() => context.close());
  const page = await context.newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'e2e-oc-org', 'ro')).path}`);
  await page.locator(`tr[data-channel="${channel}"]`).getByRole('button').click();
  await page.waitForLoadState();
  expect(new URL(page.url()).pathname).toMatch(/^\/host\/owners\/e2e-oc-own\/channels\/.+\/connect$/);
  expect(await page.locator('html').getAttribute('lang')).toBe('ro');
  await keepScreenshot(page, 'owner-connect', '00-hand-off-without-scripts');
  await page.getByRole('button').click();
  await page.waitForURL(channelApp.redirectUrl);
  expect(await page.locator('#owner strong').textContent()).toBe('Ana Popescu');
});
