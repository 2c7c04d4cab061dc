// One render, as a pipeline of small named steps on a prepared, isolated page:
// viewport -> load (goto | setContent) -> wait (waitUntil, waitForSelector) -> cleanup -> capture.
// Every step runs under the request's Deadline (spec §4.1 rule 6). Errors are domain errors
// (server/errors.ts); HTTP mapping happens elsewhere.
import type { HTTPRequest, Page } from 'puppeteer-core';
import { attachCleanup, type BannerAction } from '../cleanup/index.ts';
import { badRequest, NavigationFailed, RenderFailed, ServiceError, TargetBlocked } from '../errors.ts';
import type { ScreenshotRequest } from '../request/schema.ts';
import { capture, scrollThrough } from './capture.ts';
import type { Deadline } from './deadline.ts';
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
  /** The egress guard's friendly check, also applied to every later main-frame hop. */
  checkUrl(url: string): Promise<void>;
  maxOutputPixels: number;
}

const LAZY_SCROLL_MS = 3000; // at most this long scrolling a full page to trigger lazy content
const LAZY_IDLE_MS = 2000; // and at most this long waiting for what the scroll started

/** Net errors that mean "the target could not be reached" (DESIGN §3: 502 navigation_failed). */
function navigationError(e: unknown, url: string): ServiceError {
  if (e instanceof ServiceError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  const net = /net::(ERR_[A-Z_]+)/.exec(msg)?.[1];
  if (net) return new NavigationFailed(`could not load ${url}: ${net}`);
  return new RenderFailed(`navigation failed: ${msg.split('\n')[0]}`);
}

/**
 * Watches main-frame navigations after the first: each hop (redirect, meta refresh, script
 * navigation) is checked by the guard; a blocked one is remembered so the render ends in 400
 * naming it. The proxy refuses the connection either way; this only produces the clear error.
 */
function watchMainFrameHops(page: Page, deps: PipelineDeps, checked?: string) {
  let blocked: ServiceError | undefined;
  const checks: Promise<void>[] = [];
  const onRequest = (r: HTTPRequest) => {
    if (!r.isNavigationRequest() || r.frame() !== page.mainFrame()) return;
    const url = r.url();
    if (!/^https?:/i.test(url)) {
      if (!/^(about|data):/i.test(url)) blocked ??= new TargetBlocked(`navigation to ${url.split(':')[0]}: URLs is not allowed`);
      return;
    }
    if (url === checked) return; // the first hop, checked before navigation
    checks.push(
      deps.checkUrl(url).catch((e) => {
        if (e instanceof TargetBlocked) blocked ??= new TargetBlocked(`navigation was redirected to a blocked target: ${e.message}`);
      }),
    );
  };
  page.on('request', onRequest);
  return {
    async verdict(): Promise<ServiceError | undefined> {
      await Promise.all(checks);
      return blocked;
    },
    dispose: () => page.off('request', onRequest),
  };
}

export async function runPipeline(slot: Slot, req: ScreenshotRequest, deadline: Deadline, deps: PipelineDeps): Promise<RenderResult> {
  const { page, client } = slot;
  if (req.url) await deadline.step('checking the target address', deps.checkUrl(req.url));

  const vp = req.viewport;
  if (vp.width !== slot.viewport.width || vp.height !== slot.viewport.height || vp.deviceScaleFactor !== slot.viewport.deviceScaleFactor) {
    await deadline.step('setting the viewport', page.setViewport(vp));
    slot.viewport = { ...vp };
  }
  const tracker = new InflightTracker(page);
  const hops = watchMainFrameHops(page, deps, req.url);
  try {
    const cleanup = await deadline.step('preparing banner clean-up', attachCleanup(page, req));

    let targetStatus: number | undefined;
    if (req.url) {
      const url = req.url;
      const response = await deadline
        .step('loading the page', page.goto(url, { waitUntil: 'load', timeout: 0 }))
        .catch(async (e) => {
          throw (await hops.verdict()) ?? navigationError(e, url);
        });
      targetStatus = response?.status();
    } else {
      await deadline.step('loading the html', page.setContent(req.html ?? '', { waitUntil: 'load', timeout: 0 }));
    }

    if (req.waitUntil !== 'load') {
      await deadline.step(`waiting for ${req.waitUntil}`, tracker.waitForIdle(req.waitUntil === 'networkidle0' ? 0 : 2));
    }
    if (req.waitForSelector !== undefined) {
      const sel = req.waitForSelector;
      await deadline.step(`waiting for selector ${JSON.stringify(sel)}`, waitForSelector(page, sel));
    }
    const blocked = await hops.verdict();
    if (blocked) throw blocked;

    if (req.fullPage && req.selector === undefined) {
      await deadline.step('loading lazy content', scrollThrough(page, Math.min(LAZY_SCROLL_MS, deadline.remaining())));
      await deadline.step('waiting for lazy content', Promise.race([tracker.waitForIdle(2), new Promise((r) => setTimeout(r, LAZY_IDLE_MS))]));
    }

    const bannerAction = await deadline.step('removing cookie banners', cleanup.finish(deadline.at));
    const shot = await deadline.step('capturing', capture(page, client, req, deps.maxOutputPixels));
    return { ...shot, bannerAction, targetStatus, timings: deadline.timings };
  } finally {
    tracker.dispose();
    hops.dispose();
  }
}

async function waitForSelector(page: Page, selector: string): Promise<void> {
  try {
    await page.waitForSelector(selector, { timeout: 0 });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/is not a valid selector|SyntaxError/i.test(msg)) throw badRequest('waitForSelector must be a valid CSS selector');
    throw e;
  }
}
