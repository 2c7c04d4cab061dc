// The service's own work never gives consent (spec §1, DESIGN §3): a page whose consent library
// takes a scroll (a listener on the window or the document, onscroll, scrollend, a timer or an
// animation frame polling the position) or any click, key, focus or wheel as consent gets none
// from a full-page capture, whose lazy-content scroll runs over it (server/render/hide-scroll.ts),
// with blockCookieBanners on and off. Consent shows three ways: the page paints its top band red,
// stores a cookie and loads its tracker; the picture is read (it is what the page was when
// captured), and the tracker's requests are counted. The control: the caller's own scrollTo action
// is the caller's, and gives it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { shoot, show } from '../support/http.ts';
import { decode, keep, near, solidPng } from '../support/image.ts';

let fx: Fixture;
let srv: TestServer;

const GREEN = [0, 160, 0];
const RED = [220, 0, 0];

/**
 * The page: a green band at the top, 6000 px of content, a lazy image near the end (so that the
 * lazy-content scroll runs and is seen to have run), and a cookie bar with Accept and Reject.
 * Consent, by any of the signals, turns the band red, stores consent=yes and loads the tracker.
 */
const page = (run: string) => `<!doctype html><meta charset=utf-8>
<style>html,body{margin:0;font:16px sans-serif}#state{height:100px;background:rgb(${GREEN})}
#bar{position:fixed;left:0;right:0;bottom:0;padding:16px;background:#223;color:#fff}</style>
<div id=state></div><div style="height:6000px;background:#eee"></div>
<img loading=lazy src="/own/lazy.png?run=${run}" width=200 height=200 style="display:block">
<div style="height:400px"></div>
<div id=bar>We use cookies for analytics and personalised advertising. By scrolling this page you accept them.
<button id=accept>Accept</button> <button id=reject>Reject</button></div>
<script>
  let given = false;
  const consent = (why) => {
    if (given || /consent=no/.test(document.cookie)) return;
    given = true;
    document.cookie = 'consent=yes; path=/';
    document.getElementById('state').style.background = 'rgb(${RED})';
    const s = document.createElement('script');
    s.src = '/own/tracker.js?run=${run}&why=' + why;
    document.head.appendChild(s);
  };
  const bar = document.getElementById('bar');
  document.getElementById('accept').onclick = () => consent('accept');
  document.getElementById('reject').onclick = () => { document.cookie = 'consent=no; path=/'; bar.remove(); };
  addEventListener('scroll', () => consent('window-scroll'));
  document.addEventListener('scroll', () => consent('document-scroll'));
  document.addEventListener('scroll', () => consent('document-scroll-capture'), true);
  window.onscroll = () => consent('onscroll');
  addEventListener('scrollend', () => consent('scrollend'));
  const moved = () => scrollY > 0 || pageYOffset > 0 || document.documentElement.scrollTop > 0 || (window.visualViewport && visualViewport.pageTop > 0);
  setInterval(() => { if (moved()) consent('timer'); }, 5);
  const frame = () => { if (moved()) consent('frame'); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  for (const type of ['click', 'mousedown', 'pointerdown', 'touchstart', 'keydown', 'wheel', 'focusin'])
    document.addEventListener(type, (e) => { if (!bar.contains(e.target)) consent(type); }, true);
  addEventListener('focus', () => consent('focus'));
</script>`;

before(async () => {
  fx = await startFixture();
  const img = await solidPng(200, 200, [0, 0, 255]);
  fx.route('/own/', (_req, res, url) => {
    const run = url.searchParams.get('run') ?? '';
    if (url.pathname === '/own/page') res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(page(run));
    else if (url.pathname === '/own/lazy.png') res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(img);
    else res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end('/* the tracker */');
  });
  srv = await startTestServer({ RENDER_BUDGET_MS: '20000' }, fx);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

/** This run's requests for `path`. */
const hitsOf = (path: string, run: string) =>
  fx.requests.filter((q) => {
    const u = new URL(q.path, fx.origin);
    return u.pathname === path && u.searchParams.get('run') === run;
  });

async function capture(run: string, extra: object) {
  const r = await shoot(srv.url, { url: `${fx.origin}/own/page?run=${run}`, fullPage: true, viewport: { width: 600, height: 400 }, ...extra });
  assert.equal(r.status, 200, show(r));
  const img = await decode(r.body);
  keep(`own-actions-${run}.png`, r.body);
  return { r, band: img.at(300, 50) };
}

describe('our own actions never consent', () => {
  for (const blockCookieBanners of [true, false]) {
    test(`fullPage, blockCookieBanners ${blockCookieBanners}: the lazy scroll runs and gives no consent`, async () => {
      const run = `fp-${blockCookieBanners}`;
      const { r, band } = await capture(run, { blockCookieBanners });
      assert.ok(hitsOf('/own/lazy.png', run).length > 0, 'the lazy image was requested: the scroll ran');
      assert.ok(near(band, GREEN), `no consent when captured (the band is ${band.slice(0, 3)}); x-banner-action ${r.headers.get('x-banner-action')}`);
      const tracked = hitsOf('/own/tracker.js', run);
      assert.deepEqual(
        tracked.map((t) => t.path),
        [],
        'no tracker request',
      );
      const withConsent = fx.requests.filter((q) => new URL(q.path, fx.origin).searchParams.get('run') === run && /consent=yes/.test(q.cookie));
      assert.deepEqual(
        withConsent.map((q) => q.path),
        [],
        'no request carries a consent cookie',
      );
    });
  }

  test("control: the caller's own scrollTo action scrolls the page, and the page takes it as consent", async () => {
    const run = 'control';
    const { band } = await capture(run, { blockCookieBanners: false, actions: [{ scrollTo: 'img' }] });
    assert.ok(near(band, RED), `the page's consent signals work (the band is ${band.slice(0, 3)})`);
  });
});
