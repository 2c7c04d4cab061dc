// One render, as a pipeline of small named steps on a prepared, isolated page:
// viewport -> load (goto | setContent) -> css -> wait (waitUntil, waitForSelector) -> lazy content
// -> cleanup -> actions -> js -> delay -> last look -> capture (the order, and why: server/prepare/index.ts).
// Every step runs under the request's Deadline (spec §4.1 rule 6); with captureOnTimeout the waits
// end before it and the page is captured as it is (server/wait-timeout/). Errors are domain errors
// (server/errors.ts); HTTP mapping happens elsewhere.
import type { Page } from 'puppeteer-core';
import type { Rect } from '../../lib/visual-diff/diff.ts';
import { startBlocking } from '../blocking/index.ts';
import { attachCleanup, type BannerAction } from '../cleanup/index.ts';
import { prepareDeterminism } from '../determinism/index.ts';
import { applyEmulation, type Emulation } from '../emulation/index.ts';
import { measureBoxes } from '../compare/boxes.ts';
import { badRequest } from '../errors.ts';
import { applyPageEnv, type PageEnv } from '../page-env/index.ts';
import { applyCss, prepareForCapture } from '../prepare/index.ts';
import type { ScreenshotRequest } from '../request/schema.ts';
import { heightCap, scrollBounds, type ScrollOutcome } from '../tall-pages/index.ts';
import type { Truncation } from '../tall-pages/truncation.ts';
import { checkTargetStatus } from '../target-error/index.ts';
import { Waits, watchMainDocument, type WaitStep } from '../wait-timeout/index.ts';
import { capture, rowLimit } from './capture.ts';
import type { Deadline } from './deadline.ts';
import { HopGuard } from './hops.ts';
import { loadLazyContent } from './lazy.ts';
import { selectorParses } from './selector-check.ts';
import { InflightTracker } from './network-idle.ts';
import type { StepTiming } from './steps.ts';
import type { Slot } from './slot.ts';

export interface RenderResult {
  body: Buffer;
  width: number;
  height: number;
  bannerAction: BannerAction;
  targetStatus?: number;
  /** url mode: the page's address when it was captured, when it is not the requested one (a redirect, or a navigation by the page or the actions). */
  finalUrl?: string;
  /** fullPage, selector or clip: the capture was cut short (server/tall-pages/: height, endless, size or time). */
  truncated?: Truncation;
  /** Step durations, for the Server-Timing header. */
  timings: StepTiming[];
  /** captureOnTimeout: the waits that did not finish (empty when the page settled). */
  waitTimedOut: WaitStep[];
  /** blockResourceTypes, blockUrls: the requests refused (0 when nothing was). */
  blockedRequests: number;
  /** With `measure`: the boxes of the elements those selectors match, in picture pixels (a comparison's ignoreSelectors, server/compare/). Not a fact about the picture: never stored. */
  boxes?: Rect[];
}

export interface PipelineDeps {
  /** The egress guard's friendly check (resolves to the normalised href), also applied to every later main-frame hop. */
  checkUrl(url: string): Promise<string>;
  maxOutputPixels: number;
  /** Selectors whose elements' boxes to measure right after the capture (POST /v1/compare's ignoreSelectors). */
  measure?: readonly string[];
}

export async function runPipeline(slot: Slot, req: ScreenshotRequest, deadline: Deadline, deps: PipelineDeps): Promise<RenderResult> {
  const { page, client } = slot;
  // Navigate with the normalised href the guard checked, never the raw string (threat model).
  const url = req.url ? await deadline.step('address', deps.checkUrl(req.url)) : undefined;

  const vp = req.viewport;
  if (vp.width !== slot.viewport.width || vp.height !== slot.viewport.height || vp.deviceScaleFactor !== slot.viewport.deviceScaleFactor) {
    await deadline.step('viewport', page.setViewport(vp));
    slot.viewport = { ...vp };
  }
  // Before anything loads, so that the first request already obeys it (server/blocking/).
  const blocking = await startBlocking(page, client, req, deadline);
  const tracker = new InflightTracker(page, (r) => blocking.ignores(r));
  const hops = new HopGuard(page, deps.checkUrl, url);
  let visitor: Emulation | undefined;
  let env: PageEnv | undefined;
  try {
    // Extensions, each a room of its own; each is a no-op unless the request asks for it.
    visitor = await applyEmulation(page, client, req, url, deadline); // device, timezone, locale, geolocation, media, scripts, userAgent
    env = await applyPageEnv(page, req, url, deadline); // origin-only headers/cookies
    const freezer = await prepareDeterminism(page, client, req, deadline); // deterministic: virtual time now, freeze below
    const cleanup = await deadline.step('cleanup-prep', attachCleanup(page, req));

    // The waits (load, idle, selector, lazy content): under the deadline, or with captureOnTimeout
    // cut before it so that what the page shows is still captured (server/wait-timeout/).
    const waits = new Waits(deadline, req.captureOnTimeout);
    let targetStatus: number | undefined;
    if (url) {
      const doc = watchMainDocument(page);
      try {
        const response = await waits.load(hops.guard(page.goto(url, { waitUntil: 'load', timeout: 0 })), doc.committed).catch(async (e) => {
          throw await hops.explain(e, url);
        });
        targetStatus = response ? response.status() : doc.status();
      } finally {
        doc.dispose();
      }
      checkTargetStatus(req, targetStatus);
    } else {
      // The markup is in the page before the load event is awaited: there is always something to capture.
      await waits.load(hops.guard(page.setContent(req.html ?? '', { waitUntil: 'load', timeout: 0 })), () => true, 'loading the html');
    }
    await applyCss(client, req, deadline);

    if (req.waitUntil !== 'load') {
      await waits.step('idle', () => hops.guard(tracker.waitForIdle(req.waitUntil === 'networkidle0' ? 0 : 2)), `waiting for ${req.waitUntil}`);
    }
    if (req.waitForSelector !== undefined) {
      const sel = req.waitForSelector;
      await waits.step('selector', () => hops.guard(waitForSelector(page, sel)), 'waiting for waitForSelector');
    }

    // Without its scripts a page has no lazy loaders, and the browser loads lazy images eagerly;
    // nor can it grow as it is scrolled.
    let scroll: ScrollOutcome | undefined;
    if (req.fullPage && req.selector === undefined && req.javaScriptEnabled) {
      const maxRows = rowLimit(req.format, Math.round(vp.width * vp.deviceScaleFactor), deps.maxOutputPixels);
      scroll = await loadLazyContent(page, client, tracker, waits, hops, scrollBounds(req, maxRows, deadline));
    }

    await deadline.step('banners', hops.guard(cleanup.finish(waits.cleanupEnd())));
    // The last look hides a banner the page added after the clean-up. What the caller's own
    // actions or script make the page show is theirs to keep (an opened menu is not a late
    // banner), so with those the last look comes before them; otherwise right before the capture.
    const ownSteps = (req.actions?.length ?? 0) > 0 || req.js !== undefined;
    const lastLook = () => deadline.step('last-look', hops.guard(cleanup.lastLook(waits.cleanupEnd())));
    const early = ownSteps ? await lastLook() : undefined;
    await prepareForCapture(page, client, req, deadline, waits, hops); // actions, js, delay
    await hops.guard(freezer.settle(deadline));
    const bannerAction = early ?? (await lastLook());
    // A tall capture is planned against what is left of the budget (server/tall-pages/).
    const tall = { remainingMs: () => deadline.remaining(), cap: req.selector === undefined ? heightCap(req, scroll) : undefined };
    const shot = await deadline.step('capture', hops.guard(capture(page, client, req, deps.maxOutputPixels, tall)));
    const boxes = deps.measure?.length ? await deadline.step('boxes', measureBoxes(page, req, deps.measure, shot)) : undefined;
    const finalUrl = url !== undefined && page.url() !== url ? page.url() : undefined;
    return {
      ...shot,
      ...(boxes ? { boxes } : {}),
      ...(finalUrl ? { finalUrl } : {}),
      bannerAction,
      targetStatus,
      timings: deadline.timings,
      waitTimedOut: waits.timedOut,
      blockedRequests: blocking.count,
    };
  } finally {
    visitor?.dispose();
    env?.dispose();
    tracker.dispose();
    hops.dispose();
    blocking.dispose();
  }
}

/** Waits until an element matches; a selector the page cannot parse is a 400 naming the field. */
async function waitForSelector(page: Page, selector: string): Promise<void> {
  if (!(await selectorParses(page, selector))) throw badRequest('waitForSelector must be a valid CSS selector');
  await page.waitForSelector(selector, { timeout: 0 });
}
