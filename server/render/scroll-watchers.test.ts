// What decides whether a full-page capture scrolls through the page first (scroll-watchers.ts):
// each kind of page that reacts to a scroll is seen, with its reason; pages where nothing watches
// the viewport are not; and looking changes nothing the page can see.
//   node --import tsx --test server/render/scroll-watchers.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchChromium, type LaunchedBrowser } from '../../test/support/browser.ts';
import { prepareSlot, type Slot } from '../toolkit/slot.ts';
import { MIN_VIEWPORTS, scrollWatcher } from './scroll-watchers.ts';

let chromium: LaunchedBrowser;
before(async () => {
  chromium = await launchChromium();
});
after(async () => chromium?.close());

/** A page MIN_VIEWPORTS + 2 viewports tall (the default viewport is 720 px), with `extra` in the middle. */
const tall = (extra: string, body = '') =>
  `<!doctype html><body style="margin:0"${body}><div style="height:${(MIN_VIEWPORTS + 1) * 720}px;background:#ddd"></div>${extra}<div style="height:720px"></div></body>`;

async function look(html: string): Promise<string> {
  const slot: Slot = await prepareSlot(chromium.browser);
  try {
    await slot.page.setContent(html, { waitUntil: 'load' });
    return await scrollWatcher(slot.page, slot.client);
  } finally {
    await slot.dispose();
  }
}

describe('pages that react to a scroll are scrolled', () => {
  const cases: Record<string, [string, string]> = {
    'an <img loading=lazy>': [tall('<img loading=lazy src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width=10 height=10>'), 'loading=lazy'],
    'an <iframe loading=LAZY> (frames are not looked into)': [tall('<iframe loading=LAZY srcdoc="x"></iframe>'), 'frames'],
    'an iframe': [tall('<iframe srcdoc="x"></iframe>'), 'frames'],
    'an IntersectionObserver observing': [
      tall('<div id=a></div><script>new IntersectionObserver(() => {}).observe(document.getElementById("a"))</script>'),
      'IntersectionObserver',
    ],
    'a scroll listener on the window': [tall('<script>addEventListener("scroll", () => {})</script>'), 'scroll listener'],
    'a passive scroll listener on the document': [tall('<script>document.addEventListener("scroll", () => {}, { passive: true })</script>'), 'scroll listener'],
    'a scrollend listener': [tall('<script>addEventListener("scrollend", () => {})</script>'), 'scroll listener'],
    'window.onscroll': [tall('<script>window.onscroll = () => {}</script>'), 'scroll listener'],
    '<body onscroll>': [tall('', ' onscroll="void 0"'), 'scroll listener'],
    'content-visibility: auto': [tall('<section style="content-visibility:auto;contain-intrinsic-size:auto 500px">x</section>'), 'content-visibility: auto'],
    'a short page (its scroll costs less than the look)': ['<body style="margin:0"><div style="height:1500px"></div></body>', 'a short page'],
  };
  for (const [name, [html, why]] of Object.entries(cases)) test(name, async () => assert.equal(await look(html), why));
});

describe('pages where nothing watches the viewport are not', () => {
  const cases: Record<string, string> = {
    'a tall page without scripts': tall('<p>text</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width=10 height=10>'),
    'a tall page with a script that observes nothing': tall('<script>document.title = "x"; addEventListener("resize", () => {})</script>'),
    'a wheel listener (scrollTo fires no wheel event)': tall('<script>addEventListener("wheel", () => {})</script>'),
    'an inline handler that is not about scrolling': tall('<img src="data:," onerror="void 0">'),
  };
  for (const [name, html] of Object.entries(cases)) test(name, async () => assert.equal(await look(html), ''));
});

test('looking leaves no trace in the page: no global, no patched function, the scroll position unmoved', async () => {
  const slot = await prepareSlot(chromium.browser);
  try {
    await slot.page.setContent(tall('<script>window.before = 0; window.before = Object.getOwnPropertyNames(window).length</script>'), { waitUntil: 'load' });
    await slot.page.evaluate('scrollTo(0, 300)');
    assert.equal(await scrollWatcher(slot.page, slot.client), '');
    const after = await slot.page.evaluate(`({
      globals: Object.getOwnPropertyNames(window).length - window.before,
      native: [IntersectionObserver.prototype.observe, EventTarget.prototype.addEventListener].every((f) => /\\[native code\\]/.test(String(f))),
      y: scrollY,
    })`);
    assert.deepEqual(after, { globals: 0, native: true, y: 300 });
  } finally {
    await slot.dispose();
  }
});
