// Lazy content for fullPage captures: scroll through the page so that <img loading=lazy> and
// IntersectionObserver-revealed content start loading, then wait (bounded) until what the scroll
// started has arrived. The quiet wait is skipped when the scroll started no request: a page
// without lazy content pays only the scroll (the 500 ms window was paid on every page).
// The scroll stops at the lowest row that can be captured, on an endless page, and in time to
// leave the capture its part of the budget (server/tall-pages/). A page where nothing watches the
// viewport move is not scrolled at all (scroll-watchers.ts): there the scroll changes nothing
// and costs a frame per viewport (a 15,000 px list: ~110 ms of CPU and ~330 ms).
import type { CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import type { ScrollBounds, ScrollOutcome } from '../tall-pages/index.ts';
import type { Waits } from '../toolkit/waits.ts';
import type { HopGuard } from '../toolkit/hops.ts';
import type { InflightTracker } from './network-idle.ts';
import { HIDE_SCROLL } from './hide-scroll.ts';
import { scrollWatcher } from './scroll-watchers.ts';

export const LAZY_SCROLL_MS = 3000; // at most this long scrolling a full page to trigger lazy content
export const LAZY_IDLE_MS = 2000; // and at most this long waiting for what the scroll started
/**
 * What the scroll started has arrived when nothing has been in flight this long. Not the spec's
 * 500 ms networkidle window (that is for waitUntil): here the requests are known to have started,
 * and a short window only has to catch what their arrival starts in turn (an image swapped in by
 * a lazy loader's onload).
 */
export const LAZY_QUIET_MS = 200;
/** After the scroll, how long a request the scroll triggered may take to be reported. */
const REPORT_GRACE_MS = 50;

// Kept as source text: functions passed to page.evaluate must not be rewritten by the TS loader
// (it injects helper calls such as __name that do not exist in the page). One viewport per
// animation frame, the next scroll in a task after it (a scroll in the rAF callback itself would
// come before the frame's intersection update, so IntersectionObserver would never see the
// position before it). Down to maxY at most; with the endless-page rule (growth in viewports, or
// null), it stops once the page has grown past max(start + growth viewports, 2 x start).
// The scroll is hidden from the page (HIDE_SCROLL): consent libraries that take a scroll as
// consent would otherwise get it from us.
const SCROLL_THROUGH = `async (until, maxY, growth) => {
  const unhide = (${HIDE_SCROLL})();
  try {
    const step = Math.max(200, window.innerHeight);
    const height = () => document.documentElement.scrollHeight;
    const startHeight = height();
    const limit = growth === null ? Infinity : Math.max(startHeight + growth * window.innerHeight, 2 * startHeight);
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    for (let y = step; y < Math.min(height(), maxY) && height() <= limit && Date.now() < until; y += step) {
      window.scrollTo(0, y);
      await frame();
    }
    const endless = height() > limit;
    window.scrollTo(0, 0);
    await frame();
    // the last scroll's scrollend comes a frame later: it is swallowed too
    await frame();
    return endless ? { startHeight, endlessAt: limit } : { startHeight };
  } finally {
    unhide();
  }
}`;

/** Scrolls through the page (at most `budgetMs`; unbounded below and never endless unless told). */
export async function scrollThrough(page: Page, budgetMs: number, maxY = Infinity, growthViewports: number | null = null): Promise<ScrollOutcome> {
  // Infinity is not JSON: a bound that large is no bound.
  return (await page.evaluate(
    `(${SCROLL_THROUGH})(${Date.now() + budgetMs}, ${Number.isFinite(maxY) ? maxY : 'Infinity'}, ${growthViewports})`,
  )) as ScrollOutcome;
}

/**
 * Look whether anything watches the scroll, scroll if so, then wait for what the scroll started
 * (steps 'lazy-scroll', the look included, and 'lazy-idle'), as waits:
 * with captureOnTimeout they end before the budget and are named when cut (server/wait-timeout/fields.ts, server/toolkit/waits.ts).
 * Both end by `bounds.endBy`; when that has passed, the page is captured as it is. Returns what
 * the scroll found (undefined when it did not run to its end).
 */
export async function loadLazyContent(
  page: Page,
  client: CDPSession,
  tracker: InflightTracker,
  waits: Waits,
  hops: HopGuard,
  bounds: ScrollBounds,
): Promise<ScrollOutcome | undefined> {
  const left = () => Math.min(waits.remaining(), bounds.endBy - Date.now());
  if (left() <= 0 && !waits.captureOnTimeout) return undefined; // no time for it: the capture comes first
  let started = 0;
  const onRequest = (r: HTTPRequest) => {
    if (tracker.tracks(r)) started++;
  };
  let outcome: ScrollOutcome | undefined;
  let watched = false;
  page.on('request', onRequest);
  try {
    const scroll = async () => {
      watched = (await hops.guard(scrollWatcher(page, client))) !== '';
      if (watched) outcome = await hops.guard(scrollThrough(page, Math.max(0, Math.min(LAZY_SCROLL_MS, left())), bounds.maxY, bounds.growthViewports));
    };
    if (!(await waits.step('lazy-scroll', scroll)) || !watched) return undefined; // not scrolled: nothing was started
    await new Promise((r) => setTimeout(r, REPORT_GRACE_MS));
  } finally {
    page.off('request', onRequest);
  }
  if (started === 0 && tracker.count === 0) return outcome;
  if (left() <= 0 && !waits.captureOnTimeout) return outcome;
  const idleMs = Math.max(0, Math.min(LAZY_IDLE_MS, left()));
  await waits.step('lazy-idle', () => hops.guard(Promise.race([tracker.waitForIdle(0, LAZY_QUIET_MS), new Promise<void>((r) => setTimeout(r, idleMs))])));
  return outcome;
}
