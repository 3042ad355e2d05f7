import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { onCleanup } from './cleanup.ts';
import { ROOT } from './processes.ts';

/** Debian's headless Chromium, driven by playwright-core; closed when the file's tests end. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  onCleanup(() => browser.close());
  return browser;
}

/** Where screenshots go (git-ignored): test-artifacts/<group>/. */
export function artifactDir(group: string): string {
  const dir = path.join(ROOT, 'test-artifacts', group);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A full-page screenshot kept as an artifact; its path is printed. */
export async function keepScreenshot(page: Page, group: string, name: string): Promise<string> {
  const file = path.join(artifactDir(group), `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${path.relative(ROOT, file)}`);
  return file;
}
