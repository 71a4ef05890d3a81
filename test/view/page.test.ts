// The viewer in a real browser (decisions §9): it loads with no console error, a bad token gets a
// clear message, and the map canvas is painted and changes as the world ticks.
import t from 'tap';
import { SANDBOX_GAME } from '../../src/bridge.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { canvasDigest, launch, openViewer } from './browser.ts';

const browser = await launch(t);
if (browser) {
  const b = await startTestBridge(t, { game: SANDBOX_GAME });

  t.test('a bad token gets a clear message and stays out of the URL', async (t) => {
    const { page, errors } = await openViewer(browser, b.bridge.url, null);
    await page.fill('#token', 'not-the-token');
    await page.click('button[type=submit]');
    const alert = await page.waitForSelector('#login-error');
    t.match(await alert.textContent(), /refused this token \(401 UNAUTHORIZED\)/);
    t.notMatch(page.url(), /not-the-token/);
    // The 401 answer itself is the only console line a refused token causes (the browser logs it).
    t.same(
      errors.filter((e) => !/401/.test(e)),
      [],
    );
    await page.context().close();
  });

  t.test('the page loads with no console error; the map is painted and follows the world', async (t) => {
    const { page, errors } = await openViewer(browser, b.bridge.url, b.token);
    await page.waitForFunction(() => /\d/.test((globalThis as any).document.getElementById('tick')?.textContent ?? ''));
    t.notMatch(page.url(), new RegExp(b.token), 'the token is never in the URL');
    t.equal(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('gcb.viewer.token')), b.token, 'kept in sessionStorage');
    // Terrain arrives with the first screenshot; wait for a painted canvas.
    await page.waitForFunction(() => {
      const canvas = (globalThis as any).document.getElementById('map');
      const data = canvas.getContext('2d').getImageData(canvas.width >> 1, canvas.height >> 1, 1, 1).data;
      return data[0] + data[1] + data[2] > 0x0b + 0x0d + 0x11;
    });
    const first = await canvasDigest(page);
    t.ok(first.painted > 1000, `the canvas is painted (${first.painted} pixels)`);
    const tick = Number((await page.textContent('#tick'))!.replaceAll(',', ''));
    await page.waitForFunction((before) => Number((globalThis as any).document.getElementById('tick').textContent.replaceAll(',', '')) > before + 30, tick);
    const later = await canvasDigest(page);
    t.not(later.hash, first.hash, 'the map changed as the world ticked');
    await page.waitForSelector('.chart-box canvas');
    t.same(errors, [], 'no console error');
    await page.context().close();
  });
}
