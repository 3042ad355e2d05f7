import type { Browser, Request } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { handOffPagePolicy, renderHandOffPage } from '../../api/owner-connect/hand-off-page.ts';
import { launchChromium } from '../support/browser.ts';

/**
 * The hand-off page in a real browser (Debian's Chromium) under the policy the service sends with
 * it. Both addresses are answered by the test through request interception, so nothing leaves the
 * machine: the page at a made-up origin, and the channel's redirect URL, which records the POST.
 */

const PAGE_URL = 'https://distribution.test/hand-off';
const REDIRECT_URL = 'https://partner.example/connect?from=svc';
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJvd25fMSJ9.c2lnbmF0dXJl';
const NONCE = 'bm9uY2Utb2YtdGhpcy1wYWdl';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

/** Opens the page with the given policy; resolves with the POST the channel received, if any, and the CSP violations reported. */
async function handOff(options: { javaScriptEnabled: boolean; policy: string; html?: string; clickButton?: boolean }) {
  const context = await browser.newContext({ javaScriptEnabled: options.javaScriptEnabled });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  let received: Request | undefined;
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url === PAGE_URL) {
      await route.fulfill({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        headers: { 'content-security-policy': options.policy },
        body:
          options.html ??
          renderHandOffPage({
            redirectUrl: REDIRECT_URL,
            token: TOKEN,
            channel: 'partner',
            nonce: NONCE,
            locale: 'en',
          }),
      });
    } else if (url === REDIRECT_URL) {
      received = route.request();
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>channel</p>' });
    } else {
      await route.abort();
    }
  });
  // Not waiting for `load`: a form submission the policy blocks leaves the load pending.
  await page.goto(PAGE_URL, { waitUntil: 'commit' });
  if (options.clickButton) await page.getByRole('button', { name: 'Continue to partner' }).click();
  // Bounded: the POST arrives within a few hundred milliseconds when it arrives at all.
  for (let i = 0; i < 40 && !received; i += 1) await page.waitForTimeout(50);
  const buttonVisible = received ? undefined : await page.getByRole('button').isVisible();
  await context.close();
  return { received, violations, buttonVisible };
}

describe('the hand-off page in a browser', () => {
  test('its nonce script submits the form at once: the channel receives one POST with the form field token', async () => {
    const { received, violations } = await handOff({
      javaScriptEnabled: true,
      policy: handOffPagePolicy({ redirectUrl: REDIRECT_URL, nonce: NONCE }),
    });
    expect(violations).toEqual([]);
    expect(received?.method()).toBe('POST');
    expect(received?.headers()['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received?.postData()).toBe(`token=${TOKEN}`);
  }, 30_000);

  test('with scripts off the button is shown and pressing it sends the same POST', async () => {
    const policy = handOffPagePolicy({ redirectUrl: REDIRECT_URL, nonce: NONCE });
    const idle = await handOff({ javaScriptEnabled: false, policy });
    expect(idle.received).toBeUndefined();
    expect(idle.buttonVisible).toBe(true);
    const pressed = await handOff({ javaScriptEnabled: false, policy, clickButton: true });
    expect(pressed.received?.postData()).toBe(`token=${TOKEN}`);
  }, 30_000);

  test('the policy is what lets it work: another nonce stops the script, another form target stops the POST', async () => {
    const wrongNonce = await handOff({
      javaScriptEnabled: true,
      policy: handOffPagePolicy({ redirectUrl: REDIRECT_URL, nonce: 'b3RoZXItbm9uY2U=' }),
    });
    expect(wrongNonce.received).toBeUndefined();
    expect(wrongNonce.violations.join('\n')).toMatch(/script-src/);
    const elsewhere = await handOff({
      javaScriptEnabled: true,
      policy: handOffPagePolicy({ redirectUrl: 'https://other.example/connect', nonce: NONCE }),
    });
    expect(elsewhere.received).toBeUndefined();
    expect(elsewhere.violations.join('\n')).toMatch(/form-action/);
  }, 30_000);
});
