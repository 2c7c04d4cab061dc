// Rendering on Firefox ESR through WebDriver BiDi (puppeteer-core's `browser: 'firefox'`): one
// browser for the process, a fresh browser context (own cookies, storage, cache) per request.
// Waits (§4.1 rules 5, 6): the load event, then networkidle2/0 = at most 2/0 requests in flight
// for 500 ms, then waitForSelector; the whole render is bounded by the 20 s budget (§8).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { TimeoutError, type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import sharp from 'sharp';
import type { ShotRequest } from './validate.ts';

export const RENDER_BUDGET_MS = 20_000; // spec §8

export class RenderFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const CLEANUP_JS = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'page-cleanup.js'), 'utf8').replace(/^(\/\/.*\n)+/, '');

export async function launchFirefox(executablePath: string): Promise<Browser> {
  // Firefox writes to $HOME even with a throwaway profile: give it one of its own.
  const home = mkdtempSync(path.join(os.tmpdir(), 'ff-subject-home-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    env: { ...process.env, HOME: home, MOZ_CRASHREPORTER_DISABLE: '1' },
    extraPrefsFirefox: {
      // Overlay scrollbars take no layout space, so a full-page capture is as wide as the viewport
      // (headless Chromium hides scrollbars too).
      'ui.useOverlayScrollbars': 1,
      'layout.testing.overlay-scrollbars.always-visible': false,
      // Concurrent renders are tabs of one window, and all but one are background tabs, whose
      // timers Firefox throttles to 1 s and frames to 1 fps: late content would come late. (A window
      // per render avoids that too, but costs 2-3 times the CPU.)
      'dom.min_background_timeout_value': 4,
      'dom.min_background_timeout_value_without_budget_throttling': 4,
      'dom.timeout.enable_budget_timer_throttling': false,
      'layout.throttled_frame_rate': 60,
      'datareporting.policy.dataSubmissionEnabled': false,
      'app.update.enabled': false,
    },
  });
  browser.once('disconnected', () => rmSync(home, { recursive: true, force: true }));
  return browser;
}

/** Resolves with work's result, or rejects with 504 render_timeout once the budget is spent. */
async function withinBudget<T>(work: (deadline: number) => Promise<T>): Promise<T> {
  const deadline = Date.now() + RENDER_BUDGET_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenderFailure(504, 'render_timeout', 'rendering exceeded the 20-second budget')), RENDER_BUDGET_MS);
  });
  try {
    return await Promise.race([work(deadline), timeout]);
  } catch (e) {
    if (e instanceof TimeoutError) throw new RenderFailure(504, 'render_timeout', 'rendering exceeded the 20-second budget');
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

async function load(page: Page, req: ShotRequest, deadline: number): Promise<void> {
  const left = () => Math.max(1, deadline - Date.now());
  // Load first, then the idle window: puppeteer's own networkidle for BiDi starts its 500 ms timer
  // when navigation starts, so a slow first response "idles" before the page's late requests begin.
  if (req.html !== undefined) {
    await page.setContent(req.html, { waitUntil: 'load', timeout: left() });
  } else {
    try {
      await page.goto(req.url!, { waitUntil: 'load', timeout: left() });
    } catch (e) {
      if (e instanceof TimeoutError) throw e;
      throw new RenderFailure(502, 'navigation_failed', 'the url could not be loaded');
    }
  }
  // spec §4.1 rule 5: at most 2 (networkidle2) or 0 (networkidle0) requests in flight for 500 ms.
  // BiDi reports requests asynchronously, sometimes after the load event; a round trip through the
  // page first lets the requests it started before load be counted before the window opens.
  if (req.waitUntil !== 'load') {
    await page.evaluate('0');
    await page.waitForNetworkIdle({ idleTime: 500, concurrency: req.waitUntil === 'networkidle2' ? 2 : 0, timeout: left() });
  }
  if (req.waitForSelector) {
    try {
      await page.waitForSelector(req.waitForSelector, { timeout: left() });
    } catch (e) {
      if (e instanceof TimeoutError) throw e;
      throw new RenderFailure(400, 'bad_request', 'waitForSelector is not a valid CSS selector');
    }
  }
}

/** Captures the page (viewport, full page or the selector's element) as PNG bytes. */
async function capture(page: Page, req: ShotRequest): Promise<Buffer> {
  if (req.selector) {
    let el;
    try {
      el = await page.$(req.selector);
    } catch {
      throw new RenderFailure(400, 'bad_request', 'selector is not a valid CSS selector');
    }
    if (!el) throw new RenderFailure(400, 'selector_not_found', 'selector matches no element');
    return Buffer.from(await el.screenshot({ type: 'png' }));
  }
  return Buffer.from(await page.screenshot({ type: 'png', fullPage: req.fullPage }));
}

/**
 * omitBackground without the CDP call BiDi lacks: when neither html nor body paints a background,
 * capture twice, over a white and over a black canvas, and recover each pixel's alpha from the
 * difference (alpha = 1 - (white - black)) and its colour from the capture over black.
 */
async function captureTransparent(page: Page, req: ShotRequest): Promise<Buffer> {
  const hasOwnBackground = await page.evaluate(() =>
    [document.documentElement, document.body].some((el) => {
      if (!el) return false;
      const s = getComputedStyle(el);
      return s.backgroundImage !== 'none' || !/^(transparent|rgba\(\d+, \d+, \d+, 0\))$/.test(s.backgroundColor);
    }),
  );
  if (hasOwnBackground) return capture(page, req);
  const over = async (colour: string) => {
    await page.evaluate((c) => document.documentElement.style.setProperty('background', c, 'important'), colour);
    return sharp(await capture(page, req))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  };
  const white = await over('#ffffff');
  const black = await over('#000000');
  const out = Buffer.alloc(black.data.length);
  for (let i = 0; i < out.length; i += 4) {
    const diff = Math.max(white.data[i]! - black.data[i]!, white.data[i + 1]! - black.data[i + 1]!, white.data[i + 2]! - black.data[i + 2]!);
    const a = Math.max(0, Math.min(255, 255 - diff));
    for (let c = 0; c < 3; c++) out[i + c] = a === 0 ? 0 : Math.min(255, Math.round((black.data[i + c]! * 255) / a));
    out[i + 3] = a;
  }
  const { width, height } = black.info;
  return sharp(out, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

async function encode(png: Buffer, req: ShotRequest): Promise<Buffer> {
  if (req.format === 'png') return png;
  if (req.format === 'jpeg')
    return sharp(png)
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: req.quality ?? 80 })
      .toBuffer();
  return sharp(png)
    .webp({ quality: req.quality ?? 80 })
    .toBuffer();
}

export interface Shot {
  image: Buffer;
  cleanup: unknown;
}

/**
 * Tab switching in one window, one step at a time. Captures run with the page's tab in front: only
 * the focused tab paints focus rings (a dialog's autofocused input), so without it the same page
 * would come out differently depending on which concurrent render started last. Closing a tab
 * while another is being activated makes Firefox answer "no such frame", so closes queue here too.
 */
let tabQueue: Promise<unknown> = Promise.resolve();
function inTabQueue<T>(work: () => Promise<T>): Promise<T> {
  const run = tabQueue.then(work);
  // A step that hangs holds the others back for at most 10 s (its own render times out anyway).
  tabQueue = Promise.race([run.catch(() => undefined), new Promise((r) => setTimeout(r, 10_000).unref())]);
  return run;
}

/** A fresh browser context and its page, opened in the background (a foreground tab created while
 * another closes is sometimes discarded at once: "no such frame"); one more try if that happens. */
async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  for (let attempt = 1; ; attempt++) {
    const context = await browser.createBrowserContext();
    try {
      return { context, page: await context.newPage({ background: true }) };
    } catch (e) {
      await inTabQueue(() => context.close()).catch(() => undefined);
      if (attempt >= 2) throw e;
    }
  }
}

export async function render(browser: Browser, req: ShotRequest): Promise<Shot> {
  let context: BrowserContext | undefined;
  let done = false;
  try {
    return await withinBudget(async (deadline) => {
      const opened = await openPage(browser);
      context = opened.context;
      if (done) await inTabQueue(() => opened.context.close()); // the budget ran out meanwhile
      const page = opened.page;
      page.on('dialog', (d) => void d.dismiss().catch(() => undefined));
      await page.setViewport({ width: req.viewport.width, height: req.viewport.height, deviceScaleFactor: req.viewport.deviceScaleFactor });
      await load(page, req, deadline);
      const cleanup = await page.evaluate(
        `(${CLEANUP_JS.trim()})(${JSON.stringify({ banners: req.blockCookieBanners, hideSelectors: req.hideSelectors, blockAds: req.blockAds })})`,
      );
      const png = await inTabQueue(async () => {
        await page.bringToFront();
        return req.omitBackground && req.format !== 'jpeg' ? captureTransparent(page, req) : capture(page, req);
      });
      return { image: await encode(png, req), cleanup };
    });
  } finally {
    done = true;
    const c = context;
    if (c) await inTabQueue(() => c.close()).catch(() => undefined);
  }
}
