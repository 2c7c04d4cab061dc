// Capturing the frame: the viewport (spec §4.1 rule 1), the whole scrollable page (fullPage; lazy
// content: lazy.ts), one element's box (rule 2) or a region of the page (clip: server/clip/),
// encoded as png/jpeg/webp. Every capture is one
// Page.captureScreenshot, however tall (measured on Chromium 156, headless-shell and chromium:
// 1280x60000 and 2560x24000 in one capture are byte-identical to 4096-px tiles stitched, at a
// third of the time). PNG goes the fast path: Chromium's quick encoder (optimizeForSpeed), then one
// lossless re-encode by sharp on libuv's thread pool, off the event loop, chosen from what the
// picture is (png.ts: fewer bytes than Chromium's default encoder on photos and flat pages, at
// less CPU; `npm run bench`).
// The output-size ceiling protects the server (docs/api.md "Limits"). Where a tall capture is cut
// (the ceiling, the budget, fullPageMaxHeight, an endless page) and whether the re-encode fits in
// the budget is decided by server/tall-pages/ on the cost this machine shows (server/capture-cost/).
import type { CDPSession, Page } from 'puppeteer-core';
import { captureCost, REENCODE_SAFETY, TALL_PIXELS } from '../capture-cost/index.ts';
import { pacing } from '../capture-cost/pacing.ts';
import { badRequest, SelectorNotFound } from '../errors.ts';
import { LOSSY_QUALITY_DEFAULT, type ScreenshotRequest } from '../kinds/request.ts';
import { planCut, type TallCapture } from '../tall-pages/index.ts';
import type { Truncation } from '../tall-pages/truncation.ts';
import { compactPng } from './png.ts';
import { maxSide, type ImageFormat } from '../kinds/image.ts';

export interface Capture {
  body: Buffer;
  width: number;
  height: number;
  /** Set when fullPage, selector or clip output was cut short: the full CSS height and why (server/tall-pages/). */
  truncated?: Truncation;
}

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

type Format = ImageFormat;

/** The output rows the size ceiling allows at `outWidth` device pixels. */
export function rowLimit(format: Format, outWidth: number, maxPixels: number): number {
  return Math.min(Math.floor(maxPixels / outWidth), maxSide(format));
}

/** Checked before rendering: a viewport frame over the ceiling is a 400 naming the field. */
export function checkViewportSize(req: ScreenshotRequest, maxPixels: number): void {
  const { width, height, deviceScaleFactor: s } = req.viewport;
  const w = Math.round(width * s);
  const h = Math.round(height * s);
  if (w * h > maxPixels) {
    throw badRequest(
      `viewport is ${w}x${h} device pixels at this deviceScaleFactor; the output is limited to ${maxPixels} pixels (lower viewport.width, viewport.height or viewport.deviceScaleFactor)`,
    );
  }
  if (w > maxSide(req.format) || h > maxSide(req.format)) {
    throw badRequest(`format ${req.format} images are limited to ${maxSide(req.format)} pixels per side; viewport is ${w}x${h} device pixels`);
  }
}

/**
 * One capture through puppeteer's own page session: emulation (viewport, deviceScaleFactor) is
 * per CDP session, and a capture through another session would come back at scale 1.
 */
async function shoot(
  page: Page,
  format: Format,
  quality: number | undefined,
  omitBackground: boolean,
  pixels: number,
  tall: TallCapture,
  clip?: Clip,
): Promise<Buffer> {
  const run = () =>
    captureCost.measure(format, pixels, () =>
      page.screenshot({
        type: format,
        ...(format !== 'png' ? { quality: quality ?? LOSSY_QUALITY_DEFAULT } : { optimizeForSpeed: true }),
        ...(clip ? { clip: { ...clip, scale: 1 }, captureBeyondViewport: true } : { captureBeyondViewport: false }),
        omitBackground: omitBackground && format !== 'jpeg',
        fromSurface: true,
        encoding: 'binary',
      }),
    );
  // Chromium makes one capture at a time per browser: tall ones leave the others room (pacing.ts).
  const bytes = await (pixels >= TALL_PIXELS ? pacing.tall(run) : pacing.small(run));
  const body = Buffer.from(bytes);
  if (format !== 'png') return body;
  // The re-encode only saves bytes: when it does not fit in what is left of the budget, Chromium's
  // fast PNG is the answer (the same pixels, about 1.7 times the bytes).
  if (tall.remainingMs && !captureCost.fits('reencode', pixels, tall.remainingMs(), REENCODE_SAFETY)) return body;
  return captureCost.measure('reencode', pixels, () => compactPng(body));
}

/** A tall capture's pause for the others (pacing.ts) takes at most this fraction of what is left of the budget. */
const PAUSE_SHARE = 4;

/**
 * Captures a clip in document coordinates, from its top down to where server/tall-pages/ cuts it.
 * A tall one waits for its turn (server/capture-cost/) and is planned on its share of what is left.
 */
async function captureClip(page: Page, req: ScreenshotRequest, clip: Clip, maxPixels: number, tall: TallCapture): Promise<Capture> {
  const s = req.viewport.deviceScaleFactor;
  const outW = Math.max(1, Math.round(clip.width * s));
  const maxRows = rowLimit(req.format, outW, maxPixels);
  const run = async (t: TallCapture): Promise<Capture> => {
    const { height: cssHeight, truncated } = planCut({
      fullHeight: clip.height,
      outWidth: outW,
      scale: s,
      format: req.format,
      maxRows,
      cap: t.cap,
      remainingMs: t.remainingMs?.() ?? Infinity,
      minHeight: req.viewport.height,
    });
    const outH = Math.max(1, Math.round(cssHeight * s));
    const body = await shoot(page, req.format, req.quality, req.omitBackground, outW * outH, t, { ...clip, height: cssHeight });
    return { body, width: outW, height: outH, truncated };
  };
  const rows = Math.min(Math.round(Math.min(clip.height, tall.cap?.height ?? Infinity) * s), maxRows);
  if (outW * rows < TALL_PIXELS) return run(tall);
  const left = tall.remainingMs;
  return captureCost.inTurn(async () => {
    await pacing.roomForOthers(() => (left ? left() / PAUSE_SHARE : Infinity));
    return run({ ...tall, remainingMs: left && (() => captureCost.share(left())) });
  });
}

export async function pageSize(client: CDPSession): Promise<{ width: number; height: number }> {
  const m = await client.send('Page.getLayoutMetrics');
  const size = m.cssContentSize ?? m.contentSize;
  return { width: Math.ceil(size.width), height: Math.ceil(size.height) };
}

/** The element's box in document coordinates, or SelectorNotFound. Bad syntax is a 400 naming the field. */
export async function elementClip(page: Page, selector: string): Promise<Clip> {
  const box = await page.evaluate((sel: string) => {
    let el: Element | null;
    try {
      el = document.querySelector(sel);
    } catch {
      return 'syntax' as const;
    }
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
  }, selector);
  if (box === 'syntax') throw badRequest('selector must be a valid CSS selector');
  if (!box) throw new SelectorNotFound();
  if (box.width < 1 || box.height < 1) throw new SelectorNotFound('matches an element with no rendered box (hidden or zero size)');
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  return { x, y, width: Math.ceil(box.x + box.width) - x, height: Math.ceil(box.y + box.height) - y };
}

/** `tall`: the budget and the height cap of a tall capture (server/tall-pages/); without it nothing is cut for time. */
export async function capture(page: Page, client: CDPSession, req: ScreenshotRequest, maxPixels: number, tall: TallCapture = {}): Promise<Capture> {
  // clip: a region of the page, checked against the ceiling before the render (server/clip/).
  if (req.clip) return captureClip(page, req, req.clip, maxPixels, { remainingMs: tall.remainingMs });
  if (req.selector !== undefined) {
    return captureClip(page, req, await elementClip(page, req.selector), maxPixels, { remainingMs: tall.remainingMs });
  }
  if (req.fullPage) {
    const size = await pageSize(client);
    const width = Math.max(req.viewport.width, size.width);
    return captureClip(page, req, { x: 0, y: 0, width, height: Math.max(size.height, req.viewport.height) }, maxPixels, tall);
  }
  const { width, height, deviceScaleFactor: s } = req.viewport;
  const [w, h] = [Math.round(width * s), Math.round(height * s)];
  const body = await shoot(page, req.format, req.quality, req.omitBackground, w * h, tall);
  return { body, width: w, height: h };
}
