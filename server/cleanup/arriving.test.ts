// A banner still arriving, in real Chromium: a bar that slides in from below the viewport (a CSS
// transition, a Web Animation) is waited for and judged where it ends, never captured half-way
// (page/settle.js, dom.ts); one the page adds after the clean-up is the last look's.
//   node --import tsx --test server/cleanup/arriving.test.ts
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { attachCleanup, type CleanupOptions } from './index.ts';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';

let chromium: LaunchedBrowser;
before(async () => void (chromium = await launchChromium()));
after(() => chromium?.close());

const ON: CleanupOptions = { blockCookieBanners: true, hideSelectors: [], blockAds: false };
const ARTICLE = `<main style="height:400px;overflow:hidden"><h1>Article</h1><p>${'Some text of the article, long enough to be a page. '.repeat(30)}</p></main>`;
/** A bar at the bottom; the page records the choice on <html data-choice>. */
const BAR = `<div id=bar style="position:fixed;left:0;right:0;bottom:0;height:120px;background:#223;color:#fff">
  We use cookies for analytics. <button onclick="document.documentElement.setAttribute('data-choice','accepted')">Accept all</button>
  <button onclick="document.documentElement.setAttribute('data-choice','rejected')">Reject all</button></div>`;

async function withPage(html: string, fn: (page: Page) => Promise<void>): Promise<void> {
  const ctx = await chromium.browser.createBrowserContext();
  try {
    const page = await ctx.newPage();
    await page.setViewport({ width: 1000, height: 700 });
    await page.setContent(html, { waitUntil: 'load' });
    await fn(page);
  } finally {
    await ctx.close();
  }
}

const state = (page: Page) =>
  page.evaluate(() => {
    const bar = document.getElementById('bar');
    return {
      choice: document.documentElement.getAttribute('data-choice'),
      shown: !!bar && bar.checkVisibility() && bar.getBoundingClientRect().top < innerHeight,
    };
  });

for (const [how, script] of [
  ['a CSS transition', `bar.style.transition = 'transform 1200ms linear'; bar.style.transform = 'none';`],
  ['a Web Animation', `bar.style.transform = 'none'; bar.animate([{ transform: 'translateY(200%)' }, { transform: 'none' }], { duration: 1200 });`],
] as const) {
  test(`a bar sliding in from below the viewport (${how}) is waited for, then rejected and hidden`, async () => {
    // the bar waits below the viewport and starts in right before the clean-up, as if the page's
    // script had brought it in then
    const html = `<!doctype html><body style="margin:0">${ARTICLE}${BAR}<script>const bar = document.getElementById('bar');
      bar.style.transform = 'translateY(200%)'; window.go = () => { ${script} };</script></body>`;
    await withPage(html, async (page) => {
      const s = await attachCleanup(page, ON);
      await page.evaluate('go()');
      const action = await s.finish(Date.now() + 15_000);
      assert.match(action, /^rejected:/);
      assert.deepEqual(await state(page), { choice: 'rejected', shown: false });
    });
  });
}

test('a bar the page adds after the clean-up is hidden by the last look', async () => {
  await withPage(`<!doctype html><body style="margin:0">${ARTICLE}</body>`, async (page) => {
    const s = await attachCleanup(page, ON);
    assert.equal(await s.finish(Date.now() + 15_000), 'none');
    await page.evaluate((bar: string) => document.body.insertAdjacentHTML('beforeend', bar), BAR);
    assert.match(await s.lastLook(Date.now() + 15_000), /^(rejected|hidden)/);
    assert.equal((await state(page)).shown, false);
  });
});

test("a bar sliding in inside a web component's open shadow root (a CSS animation) is waited for, then rejected", async () => {
  // document.getAnimations() does not list animations of shadow trees: the look must ask the root
  const html = `<!doctype html><body style="margin:0">${ARTICLE}<consent-bar></consent-bar><script>
    customElements.define('consent-bar', class extends HTMLElement {
      go() { this.attachShadow({ mode: 'open' }).innerHTML = '<style>@keyframes up { from { transform: translateY(200%) } to { transform: none } } #bar { animation: up 1200ms linear }</style>' + ${JSON.stringify(BAR)}; }
    });
    window.go = () => document.querySelector('consent-bar').go();</script></body>`;
  await withPage(html, async (page) => {
    const s = await attachCleanup(page, ON);
    await page.evaluate('go()');
    assert.match(await s.finish(Date.now() + 15_000), /^rejected:/);
    assert.equal(await page.evaluate(() => document.documentElement.getAttribute('data-choice')), 'rejected');
  });
});

test('a bar the page adds while the picture is taken: seen after the capture when the last look kept watching, and hidden', async () => {
  await withPage(`<!doctype html><body style="margin:0">${ARTICLE}</body>`, async (page) => {
    const s = await attachCleanup(page, ON);
    assert.equal(await s.finish(Date.now() + 15_000), 'none');
    assert.equal(await s.lastLook(Date.now() + 15_000, { keepWatching: true }), 'none');
    // the page's script runs while the picture is being taken
    await page.evaluate((bar: string) => document.body.insertAdjacentHTML('beforeend', bar), BAR);
    assert.equal(await s.arrivedDuringCapture(Date.now() + 15_000), true, 'take the picture again');
    assert.equal((await state(page)).shown, false);
    assert.match(s.report!.action, /^(rejected|hidden)/);
    assert.equal(s.report!.duringCapture, true);
    assert.equal(await s.arrivedDuringCapture(Date.now() + 15_000), false, 'asked once: the watch is over');
  });
});

test('nothing added during the capture: one question, no second picture; a page that changes without a banner: none either', async () => {
  await withPage(`<!doctype html><body style="margin:0">${ARTICLE}<p id=clock>0</p></body>`, async (page) => {
    const s = await attachCleanup(page, ON);
    await s.finish(Date.now() + 15_000);
    await s.lastLook(Date.now() + 15_000, { keepWatching: true });
    assert.equal(await s.arrivedDuringCapture(Date.now() + 15_000), false);
  });
  await withPage(`<!doctype html><body style="margin:0">${ARTICLE}<p id=clock>0</p></body>`, async (page) => {
    const s = await attachCleanup(page, ON);
    await s.finish(Date.now() + 15_000);
    await s.lastLook(Date.now() + 15_000, { keepWatching: true });
    await page.evaluate(() => void (document.getElementById('clock')!.textContent = '1'));
    await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<div style="position:fixed;top:0;right:0">Live: 2 new posts</div>'));
    assert.equal(await s.arrivedDuringCapture(Date.now() + 15_000), false, 'a change that is no banner takes no second picture');
    assert.equal(s.report!.action, 'none');
  });
});

test('without keepWatching (the last look came before the caller’s own steps) the capture is not second-guessed', async () => {
  await withPage(`<!doctype html><body style="margin:0">${ARTICLE}</body>`, async (page) => {
    const s = await attachCleanup(page, ON);
    await s.finish(Date.now() + 15_000);
    await s.lastLook(Date.now() + 15_000);
    // what the caller's actions open is theirs to keep
    await page.evaluate((bar: string) => document.body.insertAdjacentHTML('beforeend', bar), BAR);
    assert.equal(await s.arrivedDuringCapture(Date.now() + 15_000), false);
    assert.equal((await state(page)).shown, true);
  });
});
