import type { Browser, Page } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { keepScreenshot, launchChromium } from '../support/browser.ts';
import { onCleanup } from '../support/cleanup.ts';
import { TestClock } from '../support/clock.ts';
import { dashboardScene } from '../support/host-dashboard.ts';
import { hostLink } from '../support/host-pages.ts';

// Every host page on a 390 × 844 phone, in each of the four languages, in a real headless
// Chromium: the owners page, the listings overview, a property page (a report history with a
// long public address, two charts), the owner-connect hand-off page, the question of another
// organization's link, and the pages that say no (404, 403, 401, 410, signed out). None scrolls
// sideways, and the chart's labels are at least 11 CSS px as rendered (text inside an SVG shrinks
// with the SVG). The pages need no script, so the browser runs none: the hand-off page stays to
// be measured instead of submitting itself. Screenshots under test-artifacts/host-phone/.

const BASE = '/api/v1/distribution';
const PHONE = { width: 390, height: 844 };
let api: TestApi;
let browser: Browser;
let scene: Awaited<ReturnType<typeof dashboardScene>>;
let longUrl: string;

beforeAll(async () => {
  const bed = await apiTestBed({ clock: new TestClock('2026-11-22T08:00:00Z') });
  const { clock, ctx, host } = bed;
  api = bed.api;
  scene = await dashboardScene(api, ctx, clock, 'ph');
  await host.organization('ph-other');
  // Channel A moves the upper house to a long address, as a channel's listing URL often is: the
  // history prints both addresses as text.
  const listed = await api.call('GET', `${BASE}/properties?limit=10`, { key: scene.keys.a });
  const upper = (listed.json.data as { id: string; name: { en: string } }[]).find((p) => p.name.en === 'Upper House')!;
  longUrl = `https://${scene.channels.a}.example/stay/${upper.id}/casa-de-sus-brasov-romania?utm_source=distribution&utm_medium=listing`;
  const res = await api.call('PUT', `${BASE}/properties/${upper.id}/listing`, {
    key: scene.keys.a,
    body: { status: 'published', public_url: longUrl },
  });
  expect(res.status, res.text).toBe(200);
  browser = await launchChromium();
}, 180_000);

/** A phone's browser sending the language's Accept-Language, running no script. */
async function phone(tag: string): Promise<Page> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: tag,
    javaScriptEnabled: false,
  });
  onCleanup(() => context.close());
  return context.newPage();
}

/** The page is in `lang` and as wide as the phone at most. */
async function expectFits(page: Page, lang: string, what: string): Promise<void> {
  expect(await page.locator('html').getAttribute('lang'), what).toBe(lang);
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  expect(width, `${what} (${lang}) is ${width} px wide`).toBeLessThanOrEqual(PHONE.width);
}

/** Each chart label's font size as rendered: its computed size, times the SVG's scale for SVG text. */
const LABEL_SIZES = `[...document.querySelectorAll('figure.chart text, figure.chart .chart-label')].map((label) => {
  const size = parseFloat(getComputedStyle(label).fontSize);
  const scale = label instanceof SVGGraphicsElement ? label.getScreenCTM().a : 1;
  const box = label.getBoundingClientRect();
  return { text: label.textContent, size: size * scale, right: box.right };
})`;

const LANGUAGES = [
  {
    tag: 'en-GB',
    lang: 'en',
    owners: 'Owners and channels',
    notConnected: 'Not connected',
    attention: 'Ana Popescu is not connected to',
    signOut: 'Sign out',
  },
  {
    tag: 'ro-RO',
    lang: 'ro',
    owners: 'Proprietari și canale',
    notConnected: 'Fără conexiune',
    attention: 'Nu există încă o conexiune între Ana Popescu și',
    signOut: 'Ieșire',
  },
  {
    tag: 'it-IT',
    lang: 'it',
    owners: 'Proprietari e canali',
    notConnected: 'Nessun collegamento',
    attention: 'Non c’è ancora un collegamento tra Ana Popescu e',
    signOut: 'Esci',
  },
  {
    tag: 'es-ES',
    lang: 'es',
    owners: 'Propietarios y canales',
    notConnected: 'Sin conexión',
    attention: 'Todavía no hay ninguna conexión entre Ana Popescu y',
    signOut: 'Cerrar sesión',
  },
];

test.each(LANGUAGES)(
  'in $lang, every host page fits a 390 px phone and the charts read at 11 px or more',
  async ({ tag, lang, owners, notConnected, attention, signOut }) => {
    const page = await phone(tag);
    const link = `${api.url}${(await hostLink(api, scene.org, tag)).path}`;
    await page.goto(link);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(owners);
    const row = page.locator(`tr[data-channel="${scene.channels.a}"]`);
    expect(await row.locator('td').first().textContent()).toBe(notConnected);
    await expectFits(page, lang, 'the owners page');

    await page.goto(`${api.url}/host/listings`);
    expect(await page.locator('li[data-attention="not_connected"]').first().textContent()).toContain(attention);
    await expectFits(page, lang, 'the listings overview');

    await page.goto(`${api.url}/host/listings/${scene.refs.upper}`);
    expect(await page.locator(`table[data-history="${scene.channels.a}"]`).textContent()).toContain(longUrl);
    await expectFits(page, lang, 'the property page');
    const labels = await page.evaluate<{ text: string; size: number; right: number }[]>(LABEL_SIZES);
    // Two charts (channel A's and B's), each with its two panels' labels and its dates.
    expect(labels.length).toBeGreaterThanOrEqual(6);
    for (const label of labels) {
      expect(label.size, `"${label.text}" is ${label.size.toFixed(1)} px`).toBeGreaterThanOrEqual(11);
      expect(label.right, `"${label.text}" ends inside the screen`).toBeLessThanOrEqual(PHONE.width);
    }
    await keepScreenshot(page, 'host-phone', `property-${lang}`);

    // The hand-off page names the channel; without scripts it waits for the button.
    await page.goto(`${api.url}/host/`);
    await row.getByRole('button').click();
    await page.waitForURL(/\/connect$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(scene.channels.a);
    await expectFits(page, lang, 'the hand-off page');
    await keepScreenshot(page, 'host-phone', `hand-off-${lang}`);

    await page.goto(`${api.url}/host/no-such-page`);
    await expectFits(page, lang, 'the 404 page');

    // Another organization's link asks first.
    await page.goto(`${api.url}${(await hostLink(api, 'ph-other', tag)).path}`);
    expect(await page.getByRole('main').getByRole('button').count()).toBe(1);
    await expectFits(page, lang, "the question of another organization's link");

    // A form without its CSRF token (403), then signing out, then the ended session (401).
    await page.goto(`${api.url}/host/`);
    const signOutForm = page.locator('form[action="/host/logout"]');
    await signOutForm.locator('input[name="csrf"]').evaluate((field) => field.remove());
    await signOutForm.getByRole('button', { name: signOut }).click();
    await page.waitForLoadState();
    await expectFits(page, lang, 'the 403 page');
    await page.goto(`${api.url}/host/`);
    await page.getByRole('button', { name: signOut }).click();
    await page.waitForURL(`${api.url}/host/signed-out`);
    await expectFits(page, lang, 'the signed-out page');
    expect((await page.goto(`${api.url}/host/`))?.status()).toBe(401);
    await expectFits(page, lang, 'the session-ended page');

    // The spent link (410) and one that never was (404).
    expect((await page.goto(link))?.status()).toBe(410);
    await expectFits(page, lang, 'the used-link page');
    expect((await page.goto(`${api.url}/host/open?token=hsl_${'x'.repeat(43)}`))?.status()).toBe(404);
    await expectFits(page, lang, 'the unknown-link page');
  },
);
