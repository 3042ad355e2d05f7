import type { Browser, BrowserContext } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { launchChromium, keepScreenshot } from '../support/browser.ts';
import { onCleanup } from '../support/cleanup.ts';
import { hostLink } from '../support/host-pages.ts';
import { systemClock } from '../../domain/clock.ts';

// The host pages alone, in a real headless Chromium: the platform's link opens a session once,
// forms without the session's CSRF token are refused, the pages speak Romanian, and they read on
// a phone-sized screen. Screenshots under test-artifacts/host-pages/.

let api: TestApi;
let browser: Browser;
let channel: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: systemClock });
  const { host } = bed;
  api = bed.api;
  channel = (await bed.channel()).channel.name;
  await host.organization('hp-org');
  await host.owner('hp-own', { organization: 'hp-org', display_name: 'Pensiunea Ana SRL', type: 'individual' });
  await host.location('hp-loc', { organization: 'hp-org', owner: 'hp-own' });
  await host.property('hp-prp', { location: 'hp-loc', owner: 'hp-own' });
  await host.distribute('hp-prp', [channel]);
  await host.owner('hp-own-idle', { organization: 'hp-org', display_name: 'Ion Ionescu' });
  browser = await launchChromium();
}, 180_000);

async function newContext(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, ...options });
  onCleanup(() => context.close());
  return context;
}

test('the link opens a session with an HttpOnly cookie; the same link a second time is refused', async () => {
  const context = await newContext();
  const page = await context.newPage();
  const link = `${api.url}${(await hostLink(api, 'hp-org')).path}`;
  const opened = await page.goto(link);
  expect(opened?.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe('/host/');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Owners and channels');
  expect(await page.getByRole('main').getByRole('heading', { level: 2 }).allTextContents()).toEqual([
    'Ion Ionescu',
    'Pensiunea Ana SRL',
  ]);
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({
    name: '__Host-svc_host_session',
    httpOnly: true,
    secure: true,
    sameSite: 'Lax',
    path: '/',
  });
  expect(await page.evaluate('document.cookie')).toBe('');

  // Another browser (or the same one) opening the spent link gets no session.
  const other = await (await newContext()).newPage();
  const again = await other.goto(link);
  expect(again?.status()).toBe(410);
  expect(await other.getByRole('heading', { level: 1 }).textContent()).toBe('This link was already used');
  expect(await other.context().cookies()).toEqual([]);
  await keepScreenshot(other, 'host-pages', 'link-already-used');
});

test("a form sent without the session's CSRF token is refused and changes nothing", async () => {
  const page = await (await newContext()).newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'hp-org')).path}`);
  // A page (or a forged form) without the token: the field removed before the host signs out.
  await page.evaluate(
    `document.querySelectorAll('form[action="/host/logout"] input[name="csrf"]').forEach((field) => field.remove())`,
  );
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForLoadState();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This form is no longer valid');
  await keepScreenshot(page, 'host-pages', 'csrf-refused');
  // Still signed in: the refused sign-out ended nothing.
  await page.goto(`${api.url}/host/`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Owners and channels');
  // With the token, signing out works and the pages then say the session ended.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${api.url}/host/signed-out`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are signed out');
  await page.goto(`${api.url}/host/`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your session has ended');
});

test("the pages render in Romanian from the platform's locale, and the host can switch to English", async () => {
  const page = await (await newContext()).newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'hp-org', 'ro-RO')).path}`);
  expect(await page.locator('html').getAttribute('lang')).toBe('ro');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Proprietari și canale');
  expect(await page.locator(`tr[data-channel="${channel}"] td`).first().textContent()).toBe('Fără conexiune');
  expect(await page.getByRole('button', { name: /^Conectează/ }).count()).toBe(1);
  expect(
    await page.getByText('Nicio proprietate a acestui proprietar nu este încă distribuită pe un canal.').count(),
  ).toBe(1);
  await keepScreenshot(page, 'host-pages', 'owners-ro');

  await page.getByLabel('Limba').selectOption('en');
  await page.getByRole('button', { name: 'Schimbă limba' }).click();
  await page.waitForLoadState();
  expect(await page.locator('html').getAttribute('lang')).toBe('en');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Owners and channels');
});

test.each([
  [
    'it-IT',
    'it',
    'Proprietari e canali',
    'Nessun collegamento',
    /^Collega/,
    'Nessuna struttura di questo proprietario è ancora distribuita su un canale.',
    'Lingua',
    'Cambia lingua',
  ],
  [
    'es-ES',
    'es',
    'Propietarios y canales',
    'Sin conexión',
    /^Conectar/,
    'Ningún alojamiento de este propietario se distribuye todavía en un canal.',
    'Idioma',
    'Cambiar idioma',
  ],
])(
  "the pages render in the language of %s from the platform's locale, and the host can switch to Romanian",
  async (tag, lang, title, notConnected, connect, noChannels, language, change) => {
    const page = await (await newContext()).newPage();
    await page.goto(`${api.url}${(await hostLink(api, 'hp-org', tag)).path}`);
    expect(await page.locator('html').getAttribute('lang')).toBe(lang);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
    expect(await page.locator(`tr[data-channel="${channel}"] td`).first().textContent()).toBe(notConnected);
    expect(await page.getByRole('button', { name: connect }).count()).toBe(1);
    expect(await page.getByText(noChannels).count()).toBe(1);
    // The switch offers every language, each named in itself.
    expect(await page.getByLabel(language).locator('option').allTextContents()).toEqual([
      'English',
      'Română',
      'Italiano',
      'Español',
    ]);
    await keepScreenshot(page, 'host-pages', `owners-${lang}`);

    await page.getByLabel(language).selectOption('ro');
    await page.getByRole('button', { name: change }).click();
    await page.waitForLoadState();
    expect(await page.locator('html').getAttribute('lang')).toBe('ro');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Proprietari și canale');
  },
);

test('on a phone-sized screen the page fits its width, with landmarks and a skip link', async () => {
  const page = await (
    await newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true })
  ).newPage();
  await page.goto(`${api.url}${(await hostLink(api, 'hp-org')).path}`);
  const widths = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  for (const role of ['banner', 'navigation', 'main', 'contentinfo'] as const)
    expect(await page.getByRole(role).count(), role).toBe(1);
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
  const connect = page.getByRole('button', { name: /^Connect/ });
  const box = (await connect.boundingBox())!;
  const card = (await page.locator('section.card', { has: connect }).boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
  expect(box.height).toBeGreaterThanOrEqual(44);
  await keepScreenshot(page, 'host-pages', 'owners-phone');
});
