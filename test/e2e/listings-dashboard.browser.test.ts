import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { apiTestBed } from '../support/api-bed.ts';
import type { TestApi } from '../support/api.ts';
import { keepScreenshot, launchChromium } from '../support/browser.ts';
import { onCleanup } from '../support/cleanup.ts';
import { TestClock } from '../support/clock.ts';
import { dashboardScene } from '../support/host-dashboard.ts';
import { hostLink } from '../support/host-pages.ts';

// The listings dashboard in a real headless Chromium: from the platform's link to the overview,
// badges that say what the channels reported, the property page's chart, the keyboard, Romanian
// and a phone-sized screen. Screenshots under test-artifacts/listings/.

const BASE = '/api/v1/distribution';
let api: TestApi;
let browser: Browser;
let scene: Awaited<ReturnType<typeof dashboardScene>>;

beforeAll(async () => {
  // A fixed instant, so the property's today does not depend on when the test runs; sessions and
  // links follow this clock, the browser's cookie 12 hours of real time.
  const bed = await apiTestBed({ clock: new TestClock('2026-11-22T08:00:00Z') });
  const { clock, ctx } = bed;
  api = bed.api;
  scene = await dashboardScene(api, ctx, clock, 'ld');
  browser = await launchChromium();
}, 180_000);

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context: BrowserContext = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: 1100, height: 900 },
    ...options,
  });
  onCleanup(() => context.close());
  return context.newPage();
}

/** Signs in through the platform's link and follows the navigation to the overview. */
async function openOverview(page: Page, locale?: string): Promise<void> {
  const opened = await page.goto(`${api.url}${(await hostLink(api, scene.org, locale)).path}`);
  expect(opened?.status()).toBe(200);
  const nav: Record<string, string> = { ro: 'Anunțuri', 'it-IT': 'Annunci', 'es-ES': 'Anuncios' };
  await page
    .getByRole('navigation')
    .getByRole('link', { name: nav[locale ?? ''] ?? 'Listings' })
    .click();
  await page.waitForURL(`${api.url}/host/listings`);
}

test('the host link leads to the overview, whose badges say what each channel last reported', async () => {
  const page = await newPage();
  await openOverview(page);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Listings on channels');
  // Each badge against the report the channel reads back with its own key.
  for (const [which, channel] of Object.entries(scene.channels) as ['a' | 'b', string][]) {
    const list = await api.call('GET', `${BASE}/properties?limit=10`, { key: scene.keys[which] });
    for (const property of list.json.data as { id: string; name: { en: string } }[]) {
      const report = await api.call('GET', `${BASE}/properties/${property.id}/listing`, { key: scene.keys[which] });
      const block = page
        .locator('section.card', { has: page.getByRole('heading', { level: 2, name: property.name.en }) })
        .locator(`[data-channel="${channel}"]`);
      if (report.status === 404) {
        expect(await block.getByText(`No report from ${channel} yet.`).count()).toBe(1);
        continue;
      }
      const badge = block.locator('[data-status]');
      expect(await badge.getAttribute('data-status')).toBe(report.json.status);
      expect((await badge.textContent())!.trim()).toMatch(
        { published: /Published$/, rejected: /Rejected$/, pending_review: /In review$/ }[report.json.status as string]!,
      );
    }
  }
  const upper = page.locator('section.card', { has: page.getByRole('heading', { level: 2, name: 'Upper House' }) });
  expect(
    await upper.getByRole('link', { name: new RegExp(`Open the listing on ${scene.channels.a}`) }).getAttribute('href'),
  ).toBe('https://a.example/stay/upper');
  expect(await upper.getByText('The photos show another house.').count()).toBe(1);
  const attention = page.getByRole('region', { name: 'To act on' });
  expect(await attention.locator('li').count()).toBe(6);
  expect(await attention.locator('li[data-attention="rejected"]').textContent()).toBe(
    `${scene.channels.b} rejected the listing of Upper House. Reason: Photos. Correct it on your platform. The photos show another house.`,
  );
  expect(
    await page
      .getByRole('region', { name: 'Bookings' })
      .getByText('Bookings from channels are not part of this service yet.')
      .count(),
  ).toBe(1);
  await keepScreenshot(page, 'listings', 'overview');
});

test('ticking "Withdrawn by a channel" and applying the filter leaves the withdrawn property alone, the box still ticked', async () => {
  const page = await newPage();
  await openOverview(page);
  const filters = page.getByRole('search', { name: 'Filter the properties' });
  await filters.getByLabel('Withdrawn by a channel').check();
  await filters.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/[?&]withdrawn=1/);
  expect(
    await page
      .locator('section.card[data-property]')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-property'))),
  ).toEqual([scene.refs.old]);
  expect(await page.getByRole('search').getByLabel('Withdrawn by a channel').isChecked()).toBe(true);
  await keepScreenshot(page, 'listings', 'overview-withdrawn');
});

test('the property page draws 30 days of views and clicks per channel as SVG with a table beside it, reached by keyboard', async () => {
  const page = await newPage();
  await openOverview(page);
  const details = page
    .locator('section.card', { has: page.getByRole('heading', { level: 2, name: 'Upper House' }) })
    .getByRole('link', { name: /History and statistics/ });
  await details.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(`${api.url}/host/listings/${scene.refs.upper}`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Upper House');
  const chartA = page.locator(`figure[data-chart="${scene.channels.a}"]`);
  expect(await chartA.locator('svg rect[data-series="views"]').count()).toBe(30);
  expect(await chartA.locator('svg rect[data-series="clicks"]').count()).toBe(30);
  expect(await page.locator(`figure[data-chart="${scene.channels.b}"] svg rect[data-series="views"]`).count()).toBe(12);
  // Each chart is an image named in text, with the figures as a table.
  expect(
    await page
      .getByRole('img', { name: new RegExp(`^${scene.channels.a}: views and clicks to booking per day`) })
      .count(),
  ).toBe(1);
  await page.getByText(`The figures as a table (${scene.channels.a})`).click();
  expect(
    await page
      .getByRole('table', { name: new RegExp(`^${scene.channels.a}: views`) })
      .locator('tbody tr')
      .count(),
  ).toBe(30);
  // The history, newest first.
  const history = page.locator(`table[data-history="${scene.channels.a}"] [data-status]`);
  expect(await history.evaluateAll((badges) => badges.map((b) => b.getAttribute('data-status')))).toEqual([
    'published',
    'pending_review',
  ]);
  await keepScreenshot(page, 'listings', 'property');
});

test.each([
  ['ro', 'ro', 'Anunțuri pe canale', 'Publicat'],
  ['it-IT', 'it', 'Annunci sui canali', 'Pubblicato'],
  ['es-ES', 'es', 'Anuncios en los canales', 'Publicado'],
])(
  'in the language of %s, and on a phone-sized screen the overview fits its width',
  async (tag, lang, title, published) => {
    const page = await newPage({
      viewport: { width: 360, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await openOverview(page, tag);
    expect(await page.locator('html').getAttribute('lang')).toBe(lang);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
    expect(await page.locator('[data-status="published"]').first().textContent()).toContain(published);
    const widths = await page.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await keepScreenshot(page, 'listings', `overview-phone-${lang}`);
    await page
      .locator(`section.card[data-property="${scene.refs.upper}"] a[href="/host/listings/${scene.refs.upper}"]`)
      .click();
    await page.waitForURL(`${api.url}/host/listings/${scene.refs.upper}`);
    for (const svg of await page.locator(`figure[data-chart="${scene.channels.a}"] svg`).all())
      expect((await svg.boundingBox())!.width).toBeLessThanOrEqual(360);
    expect(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
    ).toBe(true);
    await keepScreenshot(page, 'listings', `property-phone-${lang}`);
  },
);
