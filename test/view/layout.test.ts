// The viewer's layout in a real browser (decisions §9): at 1280×800 and 1920×1080 every panel fits
// the window with no console error, and a picture of the page for the README (written to
// docs/viewer.png when GCB_VIEWER_PNG=1, so a test run leaves the tree as it was).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { REPO_ROOT } from '../helpers/paths.ts';
import { launch, openViewer } from './browser.ts';

const browser = await launch(t);
if (browser) {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });

  t.test('every panel fits 1280×800 and 1920×1080; a picture of the page', async (t) => {
    const { page, errors } = await openViewer(browser, b.bridge.url, b.token);
    await b.cmd('spawn', { entity_id: 'human', x: 128, y: 128, count: 10 });
    await page.waitForSelector('.kingdoms tbody tr');
    // Two bridge polls make the first chart segment; the terrain comes with the first screenshot.
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.chart figcaption strong')[0]?.textContent !== '—');
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(300); // the map and charts follow the resize
      // Nothing spills out of the window: no page scrolling.
      const overflow = await page.evaluate(() => {
        const doc = (globalThis as any).document.documentElement;
        return { w: doc.scrollWidth - doc.clientWidth, h: doc.scrollHeight - doc.clientHeight };
      });
      t.same(overflow, { w: 0, h: 0 }, `no scrolling at ${viewport.width}×${viewport.height}`);
      const png = await page.screenshot();
      t.ok(png.length > 20_000, `a screenshot at ${viewport.width}×${viewport.height}`);
      if (viewport.width === 1280 && process.env.GCB_VIEWER_PNG === '1') writeFileSync(join(REPO_ROOT, 'docs/viewer.png'), png);
    }
    t.same(errors, [], 'no console error');
    await page.context().close();
  });
}
