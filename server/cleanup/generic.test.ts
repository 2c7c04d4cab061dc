// The generic banner detector (page/generic.js) in real Chromium: banners no rule names, found by
// what they are (a layer, consent words in the page's language, a decision control), in plain DOM,
// an open shadow root, a same-origin frame, a cross-origin frame's container and the top layer;
// the reject control clicked where there is one (never an accept), else the box hidden; the
// overlay and the scroll lock lifted. And what is not a banner stays: a header with a Privacy
// link, a chat widget, a newsletter modal, a cookie notice in the footer's flow.
//   node --import tsx --test server/cleanup/generic.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { attachCleanup, type CleanupOptions } from './index.ts';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';

let chromium: LaunchedBrowser;
before(async () => void (chromium = await launchChromium()));
after(() => chromium?.close());

const ON: CleanupOptions = { blockCookieBanners: true, hideSelectors: [], blockAds: false };
const ARTICLE = `<main style="height:400px;overflow:hidden"><h1>Article</h1><p>${'Some text of the article, long enough to be a page. '.repeat(30)}</p></main>`;
/** A control's handler: the page records the choice on <html data-choice>. */
const choose = (what: string) => `document.documentElement.setAttribute('data-choice', '${what}')`;

async function clean(html: string): Promise<{ page: Page; action: string; close: () => Promise<void> }> {
  const ctx = await chromium.browser.createBrowserContext();
  const page = await ctx.newPage();
  await page.setViewport({ width: 1000, height: 700 });
  await page.setContent(html, { waitUntil: 'load' });
  const s = await attachCleanup(page, ON);
  const action = await s.finish(Date.now() + 15_000);
  return { page, action, close: () => ctx.close() };
}

const choice = (page: Page) => page.evaluate(() => document.documentElement.getAttribute('data-choice'));
/** Whether anything is painted over the middle of the viewport's bottom band or centre (a banner left). */
const covered = (page: Page, x: number, y: number) =>
  page.evaluate(
    (px: number, py: number) => {
      const el = document.elementFromPoint(px, py);
      return !!el && el !== document.body && el !== document.documentElement && !el.closest('main');
    },
    x,
    y,
  );
const scrollLocked = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.body).overflowY === 'hidden' || getComputedStyle(document.documentElement).overflowY === 'hidden');

describe('banners found by what they are', () => {
  test('a modal with an overlay and a scroll lock in plain DOM: Decline is clicked, box and overlay hidden, scroll unlocked', async () => {
    const html = `<!doctype html><body style="margin:0;overflow:hidden">${ARTICLE}
      <div class=shade style="position:fixed;inset:0;background:rgba(0,0,0,.5)"></div>
      <div class=box style="position:fixed;left:300px;top:200px;width:400px;padding:20px;background:#fff">
        <p>This website uses cookies to measure traffic and show relevant offers.</p>
        <button onclick="${choose('accepted')}">Accept</button><button onclick="${choose('rejected')}">Decline</button><button>Configure</button>
      </div></body>`;
    const r = await clean(html);
    try {
      assert.match(r.action, /^rejected:/);
      assert.equal(await choice(r.page), 'rejected');
      assert.equal(await covered(r.page, 500, 250), false, 'the box and its overlay are gone');
      assert.equal(await scrollLocked(r.page), false, 'scroll lock lifted');
    } finally {
      await r.close();
    }
  });

  test('a card in an open shadow root of a custom element (German): "Nur notwendige" is clicked', async () => {
    const html = `<!doctype html><body style="margin:0">${ARTICLE}<consent-card></consent-card><script>
      customElements.define('consent-card', class extends HTMLElement { connectedCallback() {
        const root = this.attachShadow({ mode: 'open' });
        root.innerHTML = '<div style="position:fixed;right:20px;bottom:20px;width:360px;padding:16px;background:#eee">' +
          '<p>Wir verwenden Cookies, um Inhalte zu personalisieren. Datenschutzerklärung</p>' +
          '<button id=a>Alle akzeptieren</button> <button id=n>Nur notwendige</button></div>';
        root.getElementById('a').onclick = () => { ${choose('accepted')} };
        root.getElementById('n').onclick = () => { ${choose('rejected')}; this.remove(); };
      } });</script></body>`;
    const r = await clean(html);
    try {
      assert.equal(r.action, 'rejected:generic');
      assert.equal(await choice(r.page), 'rejected');
      assert.equal(await covered(r.page, 800, 650), false);
    } finally {
      await r.close();
    }
  });

  test('a bar in a same-origin frame (Polish): the reject control inside the frame is clicked, the frame hidden', async () => {
    const inner = `<body style="margin:0;background:#333;color:#fff"><p>Używamy plików cookie w celach analitycznych.</p><button onclick="parent.${choose('accepted')}">Akceptuję</button><button onclick="parent.${choose('rejected')}">Odrzuć wszystkie</button></body>`;
    const html = `<!doctype html><body style="margin:0">${ARTICLE}<iframe srcdoc="${inner.replace(/"/g, '&quot;')}" style="position:fixed;left:0;bottom:0;width:100%;height:140px;border:0"></iframe></body>`;
    const r = await clean(html);
    try {
      assert.equal(r.action, 'rejected:generic');
      assert.equal(await choice(r.page), 'rejected');
      assert.equal(await covered(r.page, 500, 650), false);
    } finally {
      await r.close();
    }
  });

  test('a cross-origin consent frame, judged by its container: hidden', async () => {
    const html = `<!doctype html><body style="margin:0">${ARTICLE}<div id=consent-frame-holder style="position:fixed;left:0;right:0;bottom:0;height:160px">
      <iframe title="Consent" src="data:text/html,<p>cookies</p><button>OK</button>" style="width:100%;height:100%;border:0"></iframe></div></body>`;
    const r = await clean(html);
    try {
      assert.equal(r.action, 'hidden:generic');
      assert.equal(await covered(r.page, 500, 650), false);
    } finally {
      await r.close();
    }
  });

  test('a popover in the top layer (Italian): Rifiuta is clicked', async () => {
    const html = `<!doctype html><body style="margin:0">${ARTICLE}<div id=pp popover=manual style="inset:auto 0 0 0;width:auto;margin:0;padding:16px">
      <p>Questo sito utilizza cookie di profilazione.</p><button onclick="${choose('accepted')}">Accetta</button><button onclick="${choose('rejected')}">Rifiuta</button></div>
      <script>document.getElementById('pp').showPopover()</script></body>`;
    const r = await clean(html);
    try {
      assert.match(r.action, /^rejected:/);
      assert.equal(await choice(r.page), 'rejected');
    } finally {
      await r.close();
    }
  });

  test('a notice with only a close control: hidden, not closed (closing may count as consent)', async () => {
    const html = `<!doctype html><body style="margin:0">${ARTICLE}<div style="position:fixed;left:0;right:0;bottom:0;padding:14px;background:#222;color:#fff">
      Nous utilisons des cookies pour mesurer l'audience. <button aria-label="Fermer" onclick="${choose('closed')}">×</button></div></body>`;
    const r = await clean(html);
    try {
      assert.match(r.action, /^hidden/);
      assert.equal(await choice(r.page), null, 'nothing clicked');
      assert.equal(await covered(r.page, 500, 680), false);
    } finally {
      await r.close();
    }
  });
});

describe('not banners: left as they are', () => {
  const untouched = async (html: string, x: number, y: number) => {
    const r = await clean(html);
    try {
      assert.doesNotMatch(r.action, /generic/);
      assert.equal(await choice(r.page), null, 'nothing clicked');
      assert.equal(await covered(r.page, x, y), true, 'still there');
    } finally {
      await r.close();
    }
  };

  test('a fixed header with a Privacy link', () =>
    untouched(
      `<!doctype html><body style="margin:0;padding-top:60px"><header style="position:fixed;top:0;left:0;right:0;height:50px;background:#ddd">
        <a href="/">Home</a> <a href="/blog">Blog</a> <a href="/privacy">Privacy</a> <a href="/cookies">Cookie policy</a></header>${ARTICLE}</body>`,
      500,
      25,
    ));

  test('a chat widget that mentions the privacy policy', () =>
    untouched(
      `<!doctype html><body style="margin:0">${ARTICLE}<div style="position:fixed;right:16px;bottom:16px;width:300px;padding:12px;background:#eef">
        Hi! Need help? By chatting you agree to our privacy policy. <button onclick="${choose('chat')}">Start chat</button> <button onclick="${choose('closed')}">×</button></div></body>`,
      850,
      650,
    ));

  test('a newsletter modal that mentions privacy: never taken for a consent banner', async () => {
    const r =
      await clean(`<!doctype html><body style="margin:0">${ARTICLE}<div role=dialog style="position:fixed;left:300px;top:200px;width:400px;padding:20px;background:#fff">
        <p>Get our weekly letter. We respect your privacy.</p><input type=email><button onclick="${choose('subscribed')}">Subscribe</button>
        <button onclick="${choose('declined')}">No thanks</button></div></body>`);
    try {
      assert.doesNotMatch(r.action, /generic/);
      assert.equal(await choice(r.page), null, 'nothing clicked');
    } finally {
      await r.close();
    }
  });

  test("a cookie notice in the footer's flow", () =>
    untouched(
      `<!doctype html><body style="margin:0">${ARTICLE}<footer style="height:200px;background:#ccc">This website uses cookies. <a href="/cookies">Cookie policy</a>
        <button onclick="${choose('footer')}">Reject cookies</button></footer></body>`,
      500,
      500,
    ));
});
