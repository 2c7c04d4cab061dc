// Preparing the page before the picture (server/prepare/, server/target-error/), over real HTTP
// against one reference server: css and js under a `default-src 'none'` Content-Security-Policy, js
// in the page's main world with its promise awaited, a script that throws or never ends, actions
// (a menu opened by a click, text typed and Enter pressed, seen as pixels; every kind once), the
// documented order of steps, delay, failOnTargetError. Errors name fields, never quote scripts or
// selectors, and are not billed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { decode, keep, near } from '../support/image.ts';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';

const GREEN = [32, 160, 64];
const BLUE = [32, 80, 208];
const RED = [224, 32, 32];
const WHITE = [255, 255, 255];
const BUDGET_MS = 8000;
const vp = { width: 320, height: 240 };

let fx: Fixture;
let srv: TestServer;

const balance = async () => srv.server.accounts.balance((await srv.server.accounts.authenticate(TEST_KEY))!);
const pixel = async (r: Reply, x: number, y: number) => (await decode(r.body)).at(x, y);
/** Server-Timing step names, in order. */
const steps = (r: Reply) => (r.headers.get('server-timing') ?? '').split(/,\s*(?=[\w-]+;)/).map((m) => m.split(';')[0]!.trim());

const MENU_PAGE = `<!doctype html><body style="margin:0;font:16px sans-serif">
<button id="open" style="position:absolute;left:0;top:0;width:120px;height:40px">Menu</button>
<div id="menu" style="display:none;position:absolute;left:0;top:40px;width:200px;height:120px;background:rgb(32,80,208)">
  <input id="q" style="position:absolute;left:10px;top:10px;width:150px;height:20px">
  <div id="entered" style="display:none;position:absolute;left:0;top:80px;width:200px;height:40px;background:rgb(240,192,0)"></div>
</div>
<div id="result" style="position:absolute;left:220px;top:0;width:100px;height:100px;background:rgb(224,32,32)"></div>
<script>
document.getElementById('open').addEventListener('click', () => { document.getElementById('menu').style.display = 'block'; });
document.getElementById('q').addEventListener('input', (e) => { if (e.target.value === 'hello') document.getElementById('result').style.background = 'rgb(32,160,64)'; });
document.getElementById('q').addEventListener('keydown', (e) => { if (e.key === 'Enter') document.getElementById('entered').style.display = 'block'; });
</script></body>`;

before(async () => {
  fx = await startFixture();
  // The page's own inline script and styles are refused by its CSP: only css and js can paint it.
  fx.route('/csp', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src 'none'", 'cache-control': 'no-store' });
    res.end(
      '<!doctype html><body style="background:rgb(224,32,32)"><div id="a"></div><div id="b"></div><script>document.body.style.background = "rgb(224,32,32)"</script></body>',
    );
  });
  page(fx, '/ok', '<body style="margin:0;background:rgb(32,160,64)"></body>');
  fx.route('/missing', (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<body style="background:#ddd">not found</body>'));
  fx.route('/down', (_req, res) => void res.writeHead(503, { 'content-type': 'text/html' }).end('<body>maintenance</body>'));
  fx.route('/moved', (_req, res) => void res.writeHead(302, { location: '/missing' }).end());
  srv = await startTestServer({ RENDER_BUDGET_MS: String(BUDGET_MS) }, fx);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

describe('css and js', () => {
  test("both apply on a page whose CSP is default-src 'none', which still refuses the page's own script", async () => {
    const css = 'body{margin:0;background:#fff !important} #a{position:absolute;left:0;top:0;width:100px;height:100px;background:rgb(32,160,64)}';
    const js =
      "await new Promise((r) => setTimeout(r, 100)); document.getElementById('b').style.cssText = 'position:absolute;left:100px;top:0;width:100px;height:100px;background:rgb(32,80,208)';";
    const r = await shoot(srv.url, { url: `${fx.origin}/csp`, css, js, viewport: vp, waitUntil: 'load' });
    assert.equal(r.status, 200, show(r));
    keep('prepare-csp.png', r.body);
    assert.ok(near(await pixel(r, 50, 50), GREEN), 'css painted #a');
    assert.ok(near(await pixel(r, 150, 50), BLUE), 'js painted #b');
    assert.ok(near(await pixel(r, 300, 200), WHITE), 'the css won over the inline style the CSP refused');
    const plain = await shoot(srv.url, { url: `${fx.origin}/csp`, viewport: vp, waitUntil: 'load' });
    assert.ok(
      near(await pixel(plain, 50, 50), WHITE) && near(await pixel(plain, 150, 50), WHITE),
      'without them: nothing painted (the inline style and script are refused)',
    );
  });

  test("js runs in the page's main world (calls the page's own function) and its returned promise is awaited", async () => {
    const html = `<body style="margin:0"><div id="p" style="width:320px;height:240px;background:rgb(224,32,32)"></div><script>window.paint = (c) => { document.getElementById('p').style.background = c; };</script></body>`;
    const js = "paint('rgb(32,160,64)'); return new Promise((r) => setTimeout(() => { paint('rgb(32,80,208)'); r(); }, 300));";
    const r = await shoot(srv.url, { html, js, viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.equal(r.status, 200, show(r));
    assert.ok(near(await pixel(r, 160, 120), BLUE), `the promise was awaited: ${await pixel(r, 160, 120)}`);
  });

  test('a script that throws: 422 script_error with the error message, never the script; not billed', async () => {
    const before = await balance();
    for (const [js, error] of [
      ['const secretName = 1; throw new TypeError("the widget is gone")', /^js failed in the page: TypeError: the widget is gone$/],
      ['return Promise.reject(new RangeError("late failure"))', /RangeError: late failure/],
      ['secretCall((', /SyntaxError/],
    ] as const) {
      const r = await shoot(srv.url, { html: '<p>x</p>', js, viewport: vp, waitUntil: 'load', blockCookieBanners: false });
      assert.equal(r.status, 422, show(r));
      assert.equal(r.json.error, 'script_error');
      assert.match(r.json.message, error);
      assert.ok(!r.json.message.includes('secretName') && !r.json.message.includes('secretCall'), r.json.message);
    }
    assert.equal(await balance(), before, 'failures are free');
  });

  test('a busy loop in js ends at the budget in 504 naming the step, and the next capture is quick', async () => {
    const before = await balance();
    const r = await shoot(srv.url, { html: '<p>x</p>', js: 'while (true) {}', viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.equal(r.status, 504, show(r));
    assert.equal(r.json.error, 'render_timeout');
    assert.match(r.json.message, /while running js/);
    assert.ok(r.ms < BUDGET_MS + 2000, `answered at ${r.ms} ms`);
    const next = await shoot(srv.url, { html: '<body style="background:rgb(32,160,64)"></body>', viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.equal(next.status, 200, show(next));
    assert.ok(next.ms < BUDGET_MS / 2, `the next capture took ${next.ms} ms`);
    assert.equal(await balance(), before - 1, 'only the second capture was billed');
  });
});

describe('actions', () => {
  test('click opens a menu, type fills its field, Enter submits it: the result as pixels', async () => {
    const r = await shoot(srv.url, {
      html: MENU_PAGE,
      actions: [{ click: '#open' }, { type: '#q', text: 'hello' }, { press: 'Enter' }],
      viewport: vp,
      waitUntil: 'load',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 200, show(r));
    keep('prepare-menu.png', r.body);
    assert.ok(near(await pixel(r, 180, 60), BLUE), 'the menu is open');
    assert.ok(near(await pixel(r, 270, 50), GREEN), 'the typed text reached the page');
    assert.ok(near(await pixel(r, 100, 140), [240, 192, 0]), 'Enter was pressed in the field');
    const control = await shoot(srv.url, { html: MENU_PAGE, viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.ok(near(await pixel(control, 180, 60), WHITE) && near(await pixel(control, 270, 50), RED), 'without actions: closed, red');
  });

  test('every kind of action, each a named step of Server-Timing', async () => {
    const html = `<!doctype html><body style="margin:0">
<style>#h{position:absolute;left:0;top:0;width:80px;height:80px;background:rgb(224,32,32)} #h:hover{background:rgb(32,160,64)}</style>
<div id="h"></div><div id="spinner" style="position:absolute;left:100px;top:0;width:80px;height:80px;background:#000"></div>
<div style="position:absolute;top:2000px;left:0;width:320px;height:400px;background:rgb(32,80,208)" id="far"></div>
<script>
setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; document.body.appendChild(d); }, 200);
setTimeout(() => { document.getElementById('spinner').remove(); window.ready = true; }, 300);
document.addEventListener('keydown', (e) => { if (e.key === 'Tab' && e.shiftKey) document.title = 'shift-tab'; });
</script></body>`;
    const actions = [
      { waitForSelector: '#late' },
      { waitForHidden: '#spinner' },
      { waitForFunction: 'window.ready === true && document.title !== "x"' },
      { wait: 50 },
      { press: 'Shift+Tab' },
      { waitForFunction: 'document.title === "shift-tab"' },
      { hover: '#h' },
      { scrollTo: '#far' },
    ];
    const r = await shoot(srv.url, { html, actions, viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.equal(r.status, 200, show(r));
    assert.ok(near(await pixel(r, 160, 120), BLUE), 'scrolled to #far');
    const named = steps(r);
    for (let i = 0; i < actions.length; i++) assert.ok(named.includes(`action-${i}`), `action-${i} in ${named}`);
    const desc = r.headers.get('server-timing') ?? '';
    assert.match(desc, /action-3;dur=[\d.]+;desc="actions\[3\] \(wait\)"/);
    // hover, then scrolled away: hover seen on a page whose #h is still in view
    const hover = await shoot(srv.url, { html, actions: [{ hover: '#h' }], viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.ok(near(await pixel(hover, 40, 40), GREEN), 'hover reached :hover');
  });

  test('an element that does not exist is 400 selector_not_found naming the action; a bad selector is 400; free', async () => {
    const before = await balance();
    const missing = await shoot(srv.url, {
      html: MENU_PAGE,
      actions: [{ click: '#open' }, { type: '#secret-field', text: 'x' }],
      viewport: vp,
      waitUntil: 'load',
      blockCookieBanners: false,
    });
    assert.equal(missing.status, 400, show(missing));
    assert.equal(missing.json.error, 'selector_not_found');
    assert.equal(missing.json.message, 'actions[1].type matches no element');
    const hidden = await shoot(srv.url, {
      html: '<button id="b" style="display:none">x</button>',
      actions: [{ click: '#b' }],
      viewport: vp,
      waitUntil: 'load',
      blockCookieBanners: false,
    });
    assert.equal(hidden.json?.error, 'selector_not_found', show(hidden));
    assert.match(hidden.json.message, /^actions\[0\]\.click matches an element with no rendered box/);
    const bad = await shoot(srv.url, { html: '<p>x</p>', actions: [{ click: 'div[[secret' }], viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.equal(bad.status, 400, show(bad));
    assert.equal(bad.json.message, 'actions[0].click must be a valid CSS selector');
    const thrown = await shoot(srv.url, {
      html: '<p>x</p>',
      actions: [{ waitForFunction: "document.querySelector('#secret-x').value" }],
      viewport: vp,
      waitUntil: 'load',
      blockCookieBanners: false,
    });
    assert.equal(thrown.status, 422, show(thrown));
    assert.match(thrown.json.message, /^actions\[0\]\.waitForFunction failed in the page: TypeError: Cannot read properties of null/);
    const shape = await shoot(srv.url, { html: '<p>x</p>', actions: [{ click: '#a', hover: '#secret' }] });
    assert.equal(shape.status, 400);
    assert.match(shape.json.message, /^actions\[0\] must be an object with exactly one action/);
    for (const r of [missing, hidden, bad, thrown, shape]) assert.ok(!/secret/.test(r.json.message), r.json.message);
    assert.equal(await balance(), before, 'failures are free');
  });

  test('an action that never finishes is 504 naming it', async () => {
    const r = await shoot(srv.url, {
      html: '<p>x</p>',
      actions: [{ wait: 10 }, { waitForSelector: '#never' }],
      viewport: vp,
      waitUntil: 'load',
      blockCookieBanners: false,
    });
    assert.equal(r.status, 504, show(r));
    assert.match(r.json.message, /\(while actions\[1\] \(waitForSelector\)\)$/);
  });
});

describe('the order of steps: load, css, waits, clean-up, actions, js, delay, capture', () => {
  test('the clean-up has removed the banner before a click under it; js sees the css and the click; Server-Timing in that order', async () => {
    // banner-basic.html's fixed banner covers the bottom 160 px, and with it the button: a click
    // lands on the button only once the clean-up has removed the banner.
    const banner = readFileSync(path.join(import.meta.dirname, '../../fixtures/pages/banner-basic.html'), 'utf8');
    const html = banner.replace(
      '</body>',
      `<button id="go" style="position:fixed;left:300px;bottom:40px;width:160px;height:60px">go</button>
<div id="mark" style="position:fixed;right:0;top:0;width:100px;height:100px;background:rgb(224,32,32);z-index:10"></div>
<script>document.getElementById('go').addEventListener('click', () => { window.clicked = true; });</script></body>`,
    );
    const js = `const css = getComputedStyle(document.getElementById('mark')).outlineStyle === 'dotted';
document.getElementById('mark').style.background = css && window.clicked ? 'rgb(32,160,64)' : 'rgb(32,80,208)';`;
    const r = await shoot(srv.url, {
      html,
      css: '#mark{outline:1px dotted transparent}',
      actions: [{ click: '#go' }],
      js,
      delay: 100,
      viewport: { width: 800, height: 600 },
      waitUntil: 'networkidle0',
    });
    assert.equal(r.status, 200, show(r));
    keep('prepare-order.png', r.body);
    assert.match(r.headers.get('x-banner-action') ?? '', /^(hidden|rejected)/);
    assert.ok(near(await pixel(r, 750, 50), GREEN), `js saw the css and the click: ${await pixel(r, 750, 50)}`);
    const named = steps(r);
    const order = ['load', 'css', 'idle', 'banners', 'action-0', 'js', 'delay', 'capture'];
    assert.deepEqual(
      named.filter((n) => order.includes(n)),
      order,
      named.join(' '),
    );
  });

  test('delay waits after everything, before the capture', async () => {
    const html = `<body style="margin:0;background:rgb(224,32,32)"><script>setTimeout(() => { document.body.style.background = 'rgb(32,80,208)'; }, 2500);</script></body>`;
    const r = await shoot(srv.url, { html, delay: 3000, viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.equal(r.status, 200, show(r));
    assert.ok(near(await pixel(r, 10, 10), BLUE), 'the late colour');
    const delay = /delay;dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '');
    assert.ok(delay && Number(delay[1]) >= 2990, r.headers.get('server-timing') ?? '');
    const control = await shoot(srv.url, { html, viewport: vp, waitUntil: 'load', blockCookieBanners: false });
    assert.ok(near(await pixel(control, 10, 10), RED), 'without delay: captured before the timer');
  });
});

describe('failOnTargetError', () => {
  test('a 4xx or 5xx target (after redirects) is 424 target_error naming the status, with x-target-status, free', async () => {
    const before = await balance();
    for (const [p, status] of [
      ['/missing', 404],
      ['/down', 503],
      ['/moved', 404],
    ] as const) {
      const r = await shoot(srv.url, { url: `${fx.origin}${p}`, failOnTargetError: true, viewport: vp, waitUntil: 'load' });
      assert.equal(r.status, 424, show(r));
      assert.equal(r.json.error, 'target_error');
      assert.match(r.json.message, new RegExp(`HTTP ${status}\\b`));
      assert.equal(r.headers.get('x-target-status'), String(status));
    }
    assert.equal(await balance(), before, 'failures are free');
    const ok = await shoot(srv.url, { url: `${fx.origin}/ok`, failOnTargetError: true, viewport: vp, waitUntil: 'load' });
    assert.equal(ok.status, 200, show(ok));
    const without = await shoot(srv.url, { url: `${fx.origin}/missing`, viewport: vp, waitUntil: 'load' });
    assert.equal(without.status, 200, 'without the option the error page is captured');
    assert.equal(without.headers.get('x-target-status'), '404');
  });
});
