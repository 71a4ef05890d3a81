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

  t.test('a picture at 1920×1080 and at 1280×800', async (t) => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 1920, height: 1080 },
    ]) {
      const { page, errors } = await openViewer(browser, b.bridge.url, b.token, viewport);
      await b.cmd('spawn', { entity_id: 'human', x: 128, y: 128, count: 10 });
      await page.waitForSelector('.kingdoms tbody tr');
      await page.waitForTimeout(2500); // two polls: terrain, charts with two points
      // Nothing spills out of the window: every panel fits the viewport.
      const overflow = await page.evaluate(() => {
        const doc = (globalThis as any).document.documentElement;
        return { w: doc.scrollWidth - doc.clientWidth, h: doc.scrollHeight - doc.clientHeight };
      });
      t.same(overflow, { w: 0, h: 0 }, `no scrolling at ${viewport.width}×${viewport.height}`);
      const png = await page.screenshot();
      t.ok(png.length > 20_000, `a screenshot at ${viewport.width}×${viewport.height}`);
      if (viewport.width === 1280 && process.env.GCB_VIEWER_PNG === '1') writeFileSync(join(REPO_ROOT, 'docs/viewer.png'), png);
      t.same(errors, []);
      await page.context().close();
    }
  });
}
