// GET / and /view/* (decisions §9): the page and its files need no credential and hold no data;
// the libraries come from the package (no CDN); Host and Origin rules apply; a path not in the
// table is an ordinary API path (401 without a credential). No browser needed.
import t from 'tap';
import { createHash } from 'node:crypto';
import { startTestBridge } from '../helpers/bridge.ts';

const b = await startTestBridge(t);

t.test('the page: no credential, a strict policy, no data', async (t) => {
  const res = await b.fetch('/', { auth: false });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/html/);
  const html = await res.text();
  const policy = res.headers.get('content-security-policy')!;
  t.match(policy, /default-src 'none'/);
  t.match(policy, /frame-ancestors 'none'/);
  t.match(policy, /connect-src 'self'/);
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)![1]!;
  t.match(policy, `'sha256-${createHash('sha256').update(map).digest('base64')}'`, 'the inline import map is allowed by its hash');
  t.notMatch(html, /https?:\/\//, 'nothing from another origin');
  t.notMatch(html, new RegExp(b.token), 'no token in the page');
  t.equal(res.headers.get('x-frame-options'), 'DENY');
  t.equal(res.headers.get('access-control-allow-origin'), null, 'no CORS');
});

t.test('its files and the vendored libraries', async (t) => {
  for (const path of [
    '/view/app.js',
    '/view/api.js',
    '/view/map.js',
    '/view/style.css',
    '/view/vendor/preact.mjs',
    '/view/vendor/hooks.mjs',
    '/view/vendor/htm-preact.mjs',
    '/view/vendor/uplot.mjs',
    '/view/vendor/uplot.css',
  ]) {
    const res = await b.fetch(path, { auth: false });
    t.equal(res.status, 200, path);
    t.match(res.headers.get('content-type'), path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, path);
    t.ok((await res.text()).length > 100, `${path} has content`);
  }
});

t.test('the token is sent as a header only, never in a URL', async (t) => {
  const api = await (await b.fetch('/view/api.js', { auth: false })).text();
  t.match(api, /authorization: `Bearer \$\{secret\}`/);
  t.match(api, /sessionStorage/);
  t.notMatch(api, /localStorage/);
  t.notMatch(api, /[?&]token=/);
});

t.test('Host and Origin rules, and paths outside the table', async (t) => {
  const { request } = await import('node:http');
  const status = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${b.bridge.url}/`, { headers }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
  t.equal(await status({ host: 'evil.example:80' }), 401, 'a foreign Host');
  t.equal(await status({ origin: 'http://evil.example' }), 401, 'a foreign Origin');
  t.equal((await b.fetch('/view/../bridge.toml', { auth: false })).status, 401, 'not a file of the table: the API answers');
  t.equal((await b.fetch('/view/nope.js', { auth: false })).status, 401);
  t.equal((await b.fetch('/view/nope.js')).status, 404);
});
