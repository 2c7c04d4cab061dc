// Whether anything on a page reacts to being scrolled: what decides if a full-page capture needs
// the lazy-content scroll (lazy.ts). The scroll costs a frame per viewport of height (a 15,000 px
// list: ~150 ms of CPU and ~300 ms, measured) and changes nothing on a page where nothing watches
// the viewport move: after it the page is back at the top, as it was.
//
// What reacts, and how each is seen without changing the page (no script in it: a page can tell a
// patched native function), cheapest first:
//   - frames: an iframe's observers watch the top viewport, and out-of-process ones are not
//     examined here: a page with any frame is scrolled;
//   - <img>/<iframe> loading=lazy: in the DOM;
//   - content-visibility: auto, whose remembered sizes the scroll records: the computed style of
//     every element (past MAX_ELEMENTS the page is not examined and is scrolled);
//   - scroll listeners on the window or the document, onscroll included (DOMDebugger);
//   - IntersectionObserver (lazy loaders, reveal-on-scroll): none without a script (no <script>,
//     no on* attribute); else its instances in the page's heap (Runtime.queryObjects on its
//     prototype: a full GC and a walk of the heap, ~17 ms on a small page, so a page whose heap is
//     over MAX_HEAP_BYTES is scrolled instead).
// A page shorter than MIN_VIEWPORTS viewports is scrolled without a look: that scroll costs less
// than the look. Not seen: a page that polls the scroll position from a timer, and one whose
// scripts all removed themselves from the DOM after creating an observer.
import type { CDPSession, Page } from 'puppeteer-core';

/** Over this many elements the content-visibility check would cost more than it saves: scroll. */
export const MAX_ELEMENTS = 20_000;
/** Over this much JavaScript heap, looking for observers would cost more than the scroll. */
export const MAX_HEAP_BYTES = 16 * 2 ** 20;
/** A page shorter than this many viewports is scrolled without a look (its scroll is cheap). */
export const MIN_VIEWPORTS = 4;
const GROUP = 'scroll-watchers';

// Source text: the TS loader would inject helpers that do not exist in the page.
const DOM_CHECK = `(() => {
  if (document.documentElement.scrollHeight < ${MIN_VIEWPORTS} * innerHeight) return { why: 'a short page' };
  const all = document.getElementsByTagName('*');
  if (all.length > ${MAX_ELEMENTS}) return { why: 'too many elements' };
  if (document.querySelector('img[loading=lazy i], iframe[loading=lazy i]')) return { why: 'loading=lazy' };
  let scripts = document.scripts.length > 0;
  for (const el of all) {
    if (getComputedStyle(el).contentVisibility === 'auto') return { why: 'content-visibility: auto' };
    if (!scripts) for (const a of el.attributes) if (a.name.startsWith('on')) scripts = true;
  }
  return { why: '', scripts };
})()`;

const SCROLL_EVENTS = new Set(['scroll', 'scrollend']);

/**
 * Why the page may react to a scroll ('' when nothing does). `client` is a session of the page's
 * own target (objects and listeners are looked up through it).
 */
export async function scrollWatcher(page: Page, client: CDPSession): Promise<string> {
  if (page.frames().length > 1) return 'frames';
  try {
    const dom = await client.send('Runtime.evaluate', { expression: DOM_CHECK, returnByValue: true });
    const seen = dom.result.value as { why: string; scripts?: boolean } | undefined;
    if (dom.exceptionDetails || !seen) return 'the page could not be examined';
    if (seen.why) return seen.why;
    const handle = async (expression: string) => {
      const r = await client.send('Runtime.evaluate', { expression, objectGroup: GROUP });
      return r.exceptionDetails ? undefined : r.result.objectId;
    };
    const [win, doc] = await Promise.all([handle('window'), handle('document')]);
    if (!win || !doc) return 'the page could not be examined';
    const listens = async (objectId: string) =>
      (await client.send('DOMDebugger.getEventListeners', { objectId })).listeners.some((l) => SCROLL_EVENTS.has(l.type));
    if ((await listens(win)) || (await listens(doc))) return 'scroll listener';
    if (!seen.scripts) return '';
    const { usedSize } = await client.send('Runtime.getHeapUsage');
    if (usedSize > MAX_HEAP_BYTES) return 'a large script heap';
    const proto = await handle('typeof IntersectionObserver === "function" ? IntersectionObserver.prototype : undefined');
    if (!proto) return '';
    const { objects } = await client.send('Runtime.queryObjects', { prototypeObjectId: proto, objectGroup: GROUP });
    const n = await client.send('Runtime.callFunctionOn', {
      objectId: objects.objectId!,
      functionDeclaration: 'function () { return this.length; }',
      returnByValue: true,
    });
    return Number(n.result.value) > 0 ? 'IntersectionObserver' : '';
  } catch (e) {
    return `the page could not be examined (${String(e).split('\n')[0]})`;
  } finally {
    await client.send('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => {});
  }
}
