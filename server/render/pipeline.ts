// One render, as an ordered list of steps of one shape (server/toolkit/step-shape.ts) on a prepared,
// isolated page: each step is a no-op unless the request asks for it, and what a step leaves in
// place is disposed in reverse order, once, by one stack. The order, and why each step sits where
// it does: server/prepare/index.ts. Every step runs under the request's Deadline (spec §4.1 rule 6);
// with captureOnTimeout the waits end before it and the page is captured as it is
// (server/toolkit/waits.ts). Errors are domain errors (server/errors.ts); HTTP mapping happens
// elsewhere. A new step is a function in its room, put in STEPS below; what it finds for a later
// step or the answer goes in the context (its part of RenderContext).
import type { Page } from 'puppeteer-core';
import type { Rect } from '../../lib/visual-diff/diff.ts';
import { startBlocking, type BlockingContext } from '../blocking/index.ts';
import type { BannerAction } from '../cleanup/index.ts';
import {
  bannerArrivedDuringCapture,
  CAPTURE_LOOK,
  lastLook,
  lastLookBeforeOwnSteps,
  prepareCleanup,
  removeBanners,
  type CleanupContext,
} from '../cleanup/steps.ts';
import { freeze, prepareDeterminism } from '../determinism/index.ts';
import { applyEmulation } from '../emulation/index.ts';
import { badRequest } from '../errors.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';
import { applyPageEnv } from '../page-env/index.ts';
import { applyCss, delay, runActions, runJs } from '../prepare/index.ts';
import { heightCap, scrollBounds, type ScrollOutcome } from '../tall-pages/index.ts';
import type { Truncation } from '../tall-pages/truncation.ts';
import { checkTargetStatus } from '../target-error/index.ts';
import type { Deadline } from '../toolkit/deadline.ts';
import { HopGuard } from '../toolkit/hops.ts';
import { PAGE_STEP, type Slot } from '../toolkit/slot.ts';
import { BROWSER_STEP } from '../toolkit/browser.ts';
import { disposer, runSteps, traitedStep, type PageContext, type Step } from '../toolkit/step-shape.ts';
import type { StepLabel, StepTiming } from '../toolkit/step-names.ts';
import { WAIT_LABELS, Waits, watchMainDocument, type WaitStep } from '../toolkit/waits.ts';
import { measureBoxes } from './boxes.ts';
import { capture, rowLimit, type Capture } from './capture.ts';
import { loadLazyContent } from './lazy.ts';
import { selectorParses } from './selector-check.ts';
import { InflightTracker } from './network-idle.ts';

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

/** The render's context: what every step sees, and the parts the steps fill in for later steps and the answer. */
type RenderContext = PageContext &
  BlockingContext &
  CleanupContext & {
    readonly slot: Slot;
    readonly deps: PipelineDeps;
    /** The page's requests in flight (the idle waits, the lazy content), from the blocking step on. */
    tracker?: InflightTracker;
    /** url mode: the main document's HTTP status. */
    targetStatus?: number;
    /** fullPage: what the lazy-content scroll found (server/tall-pages/). */
    scroll?: ScrollOutcome;
    shot?: Capture;
    boxes?: Rect[];
  };

/** fullPage: lazy content. Without its scripts a page has no lazy loaders, and the browser loads lazy images eagerly; nor can it grow as it is scrolled. */
const scrollsForLazy = (req: ScreenshotRequest) => req.fullPage && req.selector === undefined && req.javaScriptEnabled;
const loadLazy = traitedStep<RenderContext>({ touchesPage: scrollsForLazy }, async (ctx) => {
  const { page, client, req, deadline, waits, hops, tracker, deps } = ctx;
  if (!scrollsForLazy(req)) return;
  const vp = req.viewport;
  const maxRows = rowLimit(req.format, Math.round(vp.width * vp.deviceScaleFactor), deps.maxOutputPixels);
  ctx.scroll = await loadLazyContent(page, client, tracker!, waits, hops, scrollBounds(req, maxRows, deadline));
});

/** The pipeline's own named steps (the functions below). */
const ADDRESS: StepLabel = { name: 'address', description: 'checking the target address' };
const VIEWPORT: StepLabel = { name: 'viewport', description: 'setting the viewport' };
const CAPTURE: StepLabel = { name: 'capture', description: 'capturing' };
const RECAPTURE: StepLabel = { name: 'recapture', description: 'capturing again, without a banner that arrived during the capture' };
const BOXES: StepLabel = { name: 'boxes', description: 'measuring ignoreSelectors' };

/**
 * The page's scripts run on while the picture is taken: a banner that arrived then (the last look
 * came a moment too early) is hidden and the picture taken again, once (server/cleanup/last-look.ts).
 */
const captureAgainIfABannerArrived = traitedStep<RenderContext>({ times: [CAPTURE_LOOK, RECAPTURE] }, async (ctx) => {
  if (await bannerArrivedDuringCapture(ctx)) await takePicture(ctx, RECAPTURE);
});

/** The render, in order. */
const STEPS: readonly Step<RenderContext>[] = [
  setViewport,
  startBlocking, // before anything loads, so that the first request already obeys it (server/blocking/)
  trackRequests,
  applyEmulation, // device, timezone, locale, geolocation, media, scripts, userAgent (server/emulation/)
  applyPageEnv, // origin-only headers and cookies (server/page-env/)
  prepareDeterminism, // deterministic: virtual time now, the freeze below (server/determinism/)
  prepareCleanup,
  load,
  checkTargetStatus, // failOnTargetError (server/target-error/)
  applyCss, // css, actions, js, delay: server/prepare/
  waitForIdle,
  waitForSelector,
  removeBanners, // before the lazy content: nothing the service does comes before the rejection (server/cleanup/steps.ts)
  loadLazy,
  lastLookBeforeOwnSteps,
  runActions,
  runJs,
  delay,
  freeze,
  lastLook,
  captureImage,
  captureAgainIfABannerArrived,
  measure,
];

/**
 * Every name a render's steps may have (Server-Timing, the step metric's label), gathered from the
 * steps themselves: the pool's two before the render, the pipeline's own, each step's, the waits'
 * (two steps that share a name share its label: the last look).
 */
export const STEP_LABELS: readonly StepLabel[] = [
  ...new Set([BROWSER_STEP, PAGE_STEP, ADDRESS, VIEWPORT, ...STEPS.flatMap((s) => s.times ?? []), ...WAIT_LABELS, CAPTURE, BOXES]),
];

export async function runPipeline(slot: Slot, req: ScreenshotRequest, deadline: Deadline, deps: PipelineDeps): Promise<RenderResult> {
  const { page, client } = slot;
  // Navigate with the normalised href the guard checked, never the raw string (threat model).
  const url = req.url ? await deadline.step(ADDRESS, deps.checkUrl(req.url)) : undefined;
  const stack = new DisposableStack();
  try {
    const hops = new HopGuard(page, deps.checkUrl, url);
    stack.defer(() => hops.dispose());
    const waits = new Waits(deadline, req.captureOnTimeout);
    const ctx: RenderContext = { page, client, req, url, deadline, waits, hops, slot, deps };
    await runSteps(ctx, STEPS, stack);
    const finalUrl = url !== undefined && page.url() !== url ? page.url() : undefined;
    return {
      ...ctx.shot!,
      ...(ctx.boxes ? { boxes: ctx.boxes } : {}),
      ...(finalUrl ? { finalUrl } : {}),
      bannerAction: ctx.bannerAction!,
      targetStatus: ctx.targetStatus,
      timings: deadline.timings,
      waitTimedOut: waits.timedOut,
      blockedRequests: ctx.blocking?.count ?? 0,
    };
  } finally {
    stack.dispose();
  }
}

async function setViewport({ page, req, slot, deadline }: RenderContext): Promise<void> {
  const vp = req.viewport;
  if (vp.width === slot.viewport.width && vp.height === slot.viewport.height && vp.deviceScaleFactor === slot.viewport.deviceScaleFactor) return;
  await deadline.step(VIEWPORT, page.setViewport(vp));
  slot.viewport = { ...vp };
}

/** The page's requests in flight, less those the request blocks. */
async function trackRequests(ctx: RenderContext): Promise<Disposable> {
  const tracker = (ctx.tracker = new InflightTracker(ctx.page, (r) => ctx.blocking?.ignores(r) ?? false));
  return disposer(() => tracker.dispose());
}

/** The waits (load, idle, selector, lazy content): under the deadline, or with captureOnTimeout cut before it so that what the page shows is still captured. */
async function load(ctx: RenderContext): Promise<void> {
  const { page, req, url, waits, hops } = ctx;
  if (url) {
    const doc = watchMainDocument(page);
    try {
      const response = await waits.load(hops.guard(page.goto(url, { waitUntil: 'load', timeout: 0 })), doc.committed).catch(async (e) => {
        throw await hops.explain(e, url);
      });
      ctx.targetStatus = response ? response.status() : doc.status();
    } finally {
      doc.dispose();
    }
  } else {
    // The markup is in the page before the load event is awaited: there is always something to capture.
    await waits.load(hops.guard(page.setContent(req.html ?? '', { waitUntil: 'load', timeout: 0 })), () => true, 'loading the html');
  }
}

async function waitForIdle({ req, waits, hops, tracker }: RenderContext): Promise<void> {
  if (req.waitUntil === 'load') return;
  await waits.step('idle', () => hops.guard(tracker!.waitForIdle(req.waitUntil === 'networkidle0' ? 0 : 2)), `waiting for ${req.waitUntil}`);
}

async function waitForSelector({ page, req, waits, hops }: RenderContext): Promise<void> {
  if (req.waitForSelector === undefined) return;
  const sel = req.waitForSelector;
  await waits.step('selector', () => hops.guard(selectorIn(page, sel)), 'waiting for waitForSelector');
}

async function captureImage(ctx: RenderContext): Promise<void> {
  await takePicture(ctx, CAPTURE);
}

async function takePicture(ctx: RenderContext, label: StepLabel): Promise<void> {
  const { page, client, req, deadline, hops, deps } = ctx;
  // A tall capture is planned against what is left of the budget (server/tall-pages/).
  const tall = { remainingMs: () => deadline.remaining(), cap: req.selector === undefined ? heightCap(req, ctx.scroll) : undefined };
  ctx.shot = await deadline.step(label, hops.guard(capture(page, client, req, deps.maxOutputPixels, tall)));
}

/** POST /v1/compare's ignoreSelectors: the boxes of their elements, right after the capture. */
async function measure(ctx: RenderContext): Promise<void> {
  const selectors = ctx.deps.measure;
  if (!selectors?.length) return;
  ctx.boxes = await ctx.deadline.step(BOXES, measureBoxes(ctx.page, ctx.req, selectors, ctx.shot!));
}

/** Waits until an element matches; a selector the page cannot parse is a 400 naming the field. */
async function selectorIn(page: Page, selector: string): Promise<void> {
  if (!(await selectorParses(page, selector))) throw badRequest('waitForSelector must be a valid CSS selector');
  await page.waitForSelector(selector, { timeout: 0 });
}
