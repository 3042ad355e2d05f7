import type { Browser, BrowserContext } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { launchChromium, keepScreenshot } from '../support/browser.ts';
import { onCleanup } from '../support/cleanup.ts';
import { hostLink } from '../support/host-pages.ts';
import { systemClock } from '../../domain/clock.ts';

// A link of another organization opened in a browser signed in to one: the host is asked before
// the session is replaced, in the link's language, and the link waits for the answer.
// Screenshots under test-artifacts/host-switch/.

let api: TestApi;
let browser: Browser;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  const { host } = bed;
  api = bed.api;
  await host.organization('sw-a');
  await host.organization('sw-b');
  await host.owner('sw-own-a', { organization: 'sw-a', display_name: 'Ana of A' });
  await host.owner('sw-own-b', { organization: 'sw-b', display_name: 'Bogdan of B' });
  browser = await launchChromium();
}, 180_000);

async function signedIn(organization: string): Promise<BrowserContext> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  onCleanup(() => context.close());
  const page = await context.newPage();
  await page.goto(`${api.url}${(await hostLink(api, organization)).path}`);
  expect(await page.getByRole('main').textContent()).toContain(organization === 'sw-a' ? 'Ana of A' : 'Bogdan of B');
  await page.close();
  return context;
}

test('a link of another organization asks first; staying keeps the session and the link usable', async () => {
  const context = await signedIn('sw-a');
  const page = await context.newPage();
  const link = `${api.url}${(await hostLink(api, 'sw-b', 'ro')).path}`;
  const asked = await page.goto(link);
  expect(asked?.status()).toBe(200);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Schimbați organizația?');
  expect(await page.getByRole('main').textContent()).toContain('Org sw-a');
  expect(await page.getByRole('main').textContent()).toContain('Org sw-b');
  await keepScreenshot(page, 'host-switch', 'asked');

  await page.getByRole('link', { name: 'Rămâneți în Org sw-a' }).click();
  expect(await page.getByRole('main').textContent()).toContain('Ana of A');

  // Unanswered, the link was not spent: in a browser with no session it still opens.
  const fresh = await browser.newContext({ ignoreHTTPSErrors: true });
  onCleanup(() => fresh.close());
  const other = await fresh.newPage();
  await other.goto(link);
  expect(new URL(other.url()).pathname).toBe('/host/');
  expect(await other.getByRole('main').textContent()).toContain('Bogdan of B');
});

test('continuing switches to the other organization and ends the first session', async () => {
  const context = await signedIn('sw-a');
  const [before] = await context.cookies();
  const page = await context.newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'sw-b')).path}`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Switch organization?');
  await page.getByRole('button', { name: 'Continue as Org sw-b' }).click();
  expect(new URL(page.url()).pathname).toBe('/host/');
  expect(await page.getByRole('main').textContent()).toContain('Bogdan of B');
  expect(await page.getByRole('banner').textContent()).toContain('Org sw-b');
  await keepScreenshot(page, 'host-switch', 'switched');

  // The first session's cookie no longer opens anything.
  const stale = await browser.newContext({ ignoreHTTPSErrors: true });
  onCleanup(() => stale.close());
  await stale.addCookies([before!]);
  const old = await stale.newPage();
  expect((await old.goto(`${api.url}/host/`))?.status()).toBe(401);
});

test('a link of the same organization opens at once, asking nothing', async () => {
  const context = await signedIn('sw-a');
  const page = await context.newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'sw-a')).path}`);
  expect(new URL(page.url()).pathname).toBe('/host/');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Owners and channels');
});

test("the switch form without the session's CSRF token is refused and spends nothing", async () => {
  const context = await signedIn('sw-a');
  const page = await context.newPage();
  const link = `${api.url}${(await hostLink(api, 'sw-b')).path}`;
  await page.goto(link);
  await page.evaluate(`document.querySelectorAll('form input[name="csrf"]').forEach((field) => field.remove())`);
  await page.getByRole('button', { name: 'Continue as Org sw-b' }).click();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This form is no longer valid');
  await page.goto(`${api.url}/host/`);
  expect(await page.getByRole('main').textContent()).toContain('Ana of A');
  await page.goto(link);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Switch organization?');
});
