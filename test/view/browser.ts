// Browser tests drive Debian's chromium (the package `chromium`) through playwright-core. Locally a
// missing browser skips the file with one line naming the package; in CI (CI=true) it fails, since
// .ci/run installs the package first.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import type { Test } from 'tap';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string | null {
  for (const path of CANDIDATES) if (path && existsSync(path)) return path;
  return null;
}

/** The browser, or null when the file must skip (t is then already ended). */
export async function launch(t: Test): Promise<Browser | null> {
  const path = chromiumPath();
  if (path === null) {
    const line = 'no chromium at /usr/bin/chromium: install the Debian package `chromium` (apt-get install -y chromium) to run the browser tests';
    if (process.env.CI === 'true') t.fail(line);
    else t.comment(`skip: ${line}`);
    t.end();
    return null;
  }
  const browser = await chromium.launch({ executablePath: path, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  t.teardown(() => browser.close());
  return browser;
}

export interface Opened {
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
}

/** A fresh page at the viewer, signed in with `token` (unless null). */
export async function openViewer(browser: Browser, url: string, token: string | null, viewport = { width: 1280, height: 800 }): Promise<Opened> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${url}/`);
  if (token !== null) {
    await page.fill('#token', token);
    await page.click('button[type=submit]');
    await page.waitForSelector('#map');
  }
  return { page, errors };
}

/** A digest of what the map canvas shows now (the canvas's pixels, hashed in the page). */
export function canvasDigest(page: Page): Promise<{ painted: number; hash: number }> {
  return page.evaluate(() => {
    // No DOM types in this tree (lib ES2023): the page's objects are read loosely.
    const canvas = (globalThis as any).document.getElementById('map');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    let hash = 0;
    for (let i = 0; i < data.length; i += 4) {
      const v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      if (v !== 0x0b0d11) painted++;
      hash = (Math.imul(hash, 31) + v) | 0;
    }
    return { painted, hash };
  });
}
