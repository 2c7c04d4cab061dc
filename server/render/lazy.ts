// Lazy content for fullPage captures: scroll through the page so that <img loading=lazy> and
// IntersectionObserver-revealed content start loading, then wait (bounded) until what the scroll
// started has arrived. The quiet wait is skipped when the scroll started no request: a page
// without lazy content pays only the scroll (issue 18: the 500 ms window was paid on every page).
import type { HTTPRequest, Page } from 'puppeteer-core';
import type { Waits } from '../wait-timeout/index.ts';
import type { HopGuard } from './hops.ts';
import type { InflightTracker } from './network-idle.ts';

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
// position before it).
const SCROLL_THROUGH = `async (until) => {
  const step = Math.max(200, window.innerHeight);
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  for (let y = step; y < document.documentElement.scrollHeight && Date.now() < until; y += step) {
    window.scrollTo(0, y);
    await frame();
  }
  window.scrollTo(0, 0);
  await frame();
}`;

/** Scrolls through the page (at most `budgetMs`). */
export async function scrollThrough(page: Page, budgetMs: number): Promise<void> {
  await page.evaluate(`(${SCROLL_THROUGH})(${Date.now() + budgetMs})`);
}

/**
 * Scroll, then wait for what the scroll started (steps 'lazy-scroll' and 'lazy-idle'), as waits:
 * with captureOnTimeout they end before the budget and are named when cut (server/wait-timeout/).
 */
export async function loadLazyContent(page: Page, tracker: InflightTracker, waits: Waits, hops: HopGuard): Promise<void> {
  let started = 0;
  const onRequest = (r: HTTPRequest) => {
    if (tracker.tracks(r)) started++;
  };
  page.on('request', onRequest);
  try {
    if (!(await waits.step('lazy-scroll', () => hops.guard(scrollThrough(page, Math.min(LAZY_SCROLL_MS, waits.remaining())))))) return;
    await new Promise((r) => setTimeout(r, REPORT_GRACE_MS));
  } finally {
    page.off('request', onRequest);
  }
  if (started === 0 && tracker.count === 0) return;
  await waits.step('lazy-idle', () => hops.guard(Promise.race([tracker.waitForIdle(0, LAZY_QUIET_MS), new Promise<void>((r) => setTimeout(r, LAZY_IDLE_MS))])));
}
