// One render, as a pipeline of small named steps on a prepared, isolated page:
// viewport -> load (goto | setContent) -> wait (waitUntil, waitForSelector) -> cleanup -> capture.
// Every step runs under the request's Deadline (spec §4.1 rule 6). Errors are domain errors
// (server/errors.ts); HTTP mapping happens elsewhere.
import type { Page } from 'puppeteer-core';
import { attachCleanup, type BannerAction } from '../cleanup/index.ts';
import { prepareDeterminism } from '../determinism/index.ts';
import { badRequest } from '../errors.ts';
import { applyPageEnv, type PageEnv } from '../page-env/index.ts';
import type { ScreenshotRequest } from '../request/schema.ts';
import { capture, scrollThrough } from './capture.ts';
import type { Deadline } from './deadline.ts';
import { HopGuard } from './hops.ts';
import { InflightTracker } from './network-idle.ts';
import type { Slot } from './slot.ts';

export interface RenderResult {
  body: Buffer;
  width: number;
  height: number;
  bannerAction: BannerAction;
  targetStatus?: number;
  truncatedFrom?: number;
  /** Step durations, for the Server-Timing header. */
  timings: Array<{ stage: string; ms: number }>;
}

export interface PipelineDeps {
  /** The egress guard's friendly check (resolves to the normalised href), also applied to every later main-frame hop. */
  checkUrl(url: string): Promise<string>;
  maxOutputPixels: number;
}

const LAZY_SCROLL_MS = 3000; // at most this long scrolling a full page to trigger lazy content
const LAZY_IDLE_MS = 2000; // and at most this long waiting for what the scroll started

export async function runPipeline(slot: Slot, req: ScreenshotRequest, deadline: Deadline, deps: PipelineDeps): Promise<RenderResult> {
  const { page, client } = slot;
  // Navigate with the normalised href the guard checked, never the raw string (threat model).
  const url = req.url ? await deadline.step('checking the target address', deps.checkUrl(req.url)) : undefined;

  const vp = req.viewport;
  if (vp.width !== slot.viewport.width || vp.height !== slot.viewport.height || vp.deviceScaleFactor !== slot.viewport.deviceScaleFactor) {
    await deadline.step('setting the viewport', page.setViewport(vp));
    slot.viewport = { ...vp };
  }
  const tracker = new InflightTracker(page);
  const hops = new HopGuard(page, deps.checkUrl, url);
  let env: PageEnv | undefined;
  try {
    // Extensions (issue 12), each a room of its own; each is a no-op unless the request asks for it.
    env = await applyPageEnv(page, req, url, deadline); // colorScheme, userAgent, origin-only headers/cookies
    const freezer = await prepareDeterminism(page, client, req, deadline); // deterministic: virtual time now, freeze below
    const cleanup = await deadline.step('preparing banner clean-up', attachCleanup(page, req));

    let targetStatus: number | undefined;
    if (url) {
      const response = await deadline
        .step('loading the page', hops.guard(page.goto(url, { waitUntil: 'load', timeout: 0 })))
        .catch(async (e) => {
          throw await hops.explain(e, url);
        });
      targetStatus = response?.status();
    } else {
      await deadline.step('loading the html', hops.guard(page.setContent(req.html ?? '', { waitUntil: 'load', timeout: 0 })));
    }

    if (req.waitUntil !== 'load') {
      await deadline.step(`waiting for ${req.waitUntil}`, hops.guard(tracker.waitForIdle(req.waitUntil === 'networkidle0' ? 0 : 2)));
    }
    if (req.waitForSelector !== undefined) {
      const sel = req.waitForSelector;
      await deadline.step('waiting for waitForSelector', hops.guard(waitForSelector(page, sel)));
    }

    if (req.fullPage && req.selector === undefined) {
      await deadline.step('loading lazy content', hops.guard(scrollThrough(page, Math.min(LAZY_SCROLL_MS, deadline.remaining()))));
      await deadline.step('waiting for lazy content', hops.guard(Promise.race([tracker.waitForIdle(0), new Promise<void>((r) => setTimeout(r, LAZY_IDLE_MS))])));
    }

    const bannerAction = await deadline.step('removing cookie banners', hops.guard(cleanup.finish(deadline.at)));
    await hops.guard(freezer.settle(deadline));
    const shot = await deadline.step('capturing', hops.guard(capture(page, client, req, deps.maxOutputPixels)));
    return { ...shot, bannerAction, targetStatus, timings: deadline.timings };
  } finally {
    env?.dispose();
    tracker.dispose();
    hops.dispose();
  }
}

/** Waits until an element matches; a selector the page cannot parse is a 400 naming the field. */
async function waitForSelector(page: Page, selector: string): Promise<void> {
  // Source text, not a function: the TS loader would inject helpers that do not exist in the page.
  const valid = await page.evaluate(`(() => { try { document.createDocumentFragment().querySelector(${JSON.stringify(selector)}); return true; } catch { return false; } })()`);
  if (!valid) throw badRequest('waitForSelector must be a valid CSS selector');
  await page.waitForSelector(selector, { timeout: 0 });
}
