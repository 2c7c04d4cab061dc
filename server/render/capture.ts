// Capturing the frame: the viewport (spec §4.1 rule 1), the whole scrollable page (fullPage; lazy
// content: lazy.ts), one element's box (rule 2) or a region of the page (clip: server/clip/),
// encoded as png/jpeg/webp. Every capture is one
// Page.captureScreenshot, however tall (measured on Chromium 156, headless-shell and chromium:
// 1280x60000 and 2560x24000 in one capture are byte-identical to 4096-px tiles stitched, at a
// third of the time). PNG goes the fast path: Chromium's quick encoder (optimizeForSpeed), then one
// lossless re-encode by sharp on libuv's thread pool, off the event loop (on a gradient share card,
// less than half the time of Chromium's default PNG encoder, and fewer bytes; `npm run bench`).
// The output-size ceiling protects the server (docs/api.md "Limits").
import type { CDPSession, Page } from 'puppeteer-core';
import sharp from 'sharp';
import { badRequest, SelectorNotFound } from '../errors.ts';
import { LOSSY_QUALITY_DEFAULT, type ScreenshotRequest } from '../request/schema.ts';

export const WEBP_MAX_SIDE = 16383; // the WebP format's own limit
export const JPEG_MAX_SIDE = 65535;
/** Above this many pixels the re-encode uses a lower zlib level: time grows with pixels, bytes barely. */
const BIG_PNG_PIXELS = 4_000_000;
/** Over this, an image is photographic: adaptive filtering is tried too (see compactPng). */
const PHOTO_BYTES_PER_PIXEL = 0.5;

export interface Capture {
  body: Buffer;
  width: number;
  height: number;
  /** Set when fullPage or selector output was cut at the size ceiling: the full height in CSS px. */
  truncatedFrom?: number;
}

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

type Format = ScreenshotRequest['format'];

export function maxSide(format: Format): number {
  return format === 'webp' ? WEBP_MAX_SIDE : JPEG_MAX_SIDE;
}

/** Checked before rendering: a viewport frame over the ceiling is a 400 naming the field. */
export function checkViewportSize(req: ScreenshotRequest, maxPixels: number): void {
  const { width, height, deviceScaleFactor: s } = req.viewport;
  const w = Math.round(width * s);
  const h = Math.round(height * s);
  if (w * h > maxPixels) {
    throw badRequest(`viewport is ${w}x${h} device pixels at this deviceScaleFactor; the output is limited to ${maxPixels} pixels (lower viewport.width, viewport.height or viewport.deviceScaleFactor)`);
  }
  if (w > maxSide(req.format) || h > maxSide(req.format)) {
    throw badRequest(`format ${req.format} images are limited to ${maxSide(req.format)} pixels per side; viewport is ${w}x${h} device pixels`);
  }
}

/**
 * One capture through puppeteer's own page session: emulation (viewport, deviceScaleFactor) is
 * per CDP session, and a capture through another session would come back at scale 1.
 */
async function shoot(page: Page, format: Format, quality: number | undefined, omitBackground: boolean, clip?: Clip): Promise<Buffer> {
  const bytes = await page.screenshot({
    type: format,
    ...(format !== 'png' ? { quality: quality ?? LOSSY_QUALITY_DEFAULT } : { optimizeForSpeed: true }),
    ...(clip ? { clip: { ...clip, scale: 1 }, captureBeyondViewport: true } : { captureBeyondViewport: false }),
    omitBackground: omitBackground && format !== 'jpeg',
    fromSurface: true,
    encoding: 'binary',
  });
  const body = Buffer.from(bytes);
  return format === 'png' ? compactPng(body) : body;
}

/**
 * Chromium's fast PNG (zlib's quickest setting, about twice the bytes of its default) re-encoded
 * losslessly: the same pixels, alpha kept. First without adaptive filtering, which on rendered
 * pages (flat colour, gradients, text) is both quicker and smaller; an image that stays over
 * PHOTO_BYTES_PER_PIXEL after it is photographic, where per-row filters pay: it is encoded again
 * with them and the smaller kept (`npm run bench`: a gradient card 0.4x the time and bytes of
 * Chromium's default encoder; a card with a photo about 0.9x of both).
 */
export async function compactPng(fast: Buffer): Promise<Buffer> {
  const img = sharp(fast, { limitInputPixels: false });
  const { width = 0, height = 0 } = await img.metadata();
  const pixels = width * height;
  if (pixels > BIG_PNG_PIXELS) return img.png({ compressionLevel: 3, adaptiveFiltering: false }).toBuffer();
  const flat = await img.clone().png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
  if (flat.length <= pixels * PHOTO_BYTES_PER_PIXEL) return flat;
  const filtered = await img.png({ compressionLevel: 6, adaptiveFiltering: true }).toBuffer();
  return filtered.length < flat.length ? filtered : flat;
}

/** Captures a clip in document coordinates, cut at the output ceiling. */
async function captureClip(page: Page, req: ScreenshotRequest, clip: Clip, maxPixels: number): Promise<Capture> {
  const s = req.viewport.deviceScaleFactor;
  const outW = Math.max(1, Math.round(clip.width * s));
  let cssHeight = clip.height;
  let truncatedFrom: number | undefined;
  const limitRows = Math.min(Math.floor(maxPixels / outW), maxSide(req.format));
  if (Math.round(cssHeight * s) > limitRows) {
    truncatedFrom = clip.height;
    cssHeight = Math.floor(limitRows / s);
  }
  const outH = Math.max(1, Math.round(cssHeight * s));
  const body = await shoot(page, req.format, req.quality, req.omitBackground, { ...clip, height: cssHeight });
  return { body, width: outW, height: outH, truncatedFrom };
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

export async function capture(page: Page, client: CDPSession, req: ScreenshotRequest, maxPixels: number): Promise<Capture> {
  // clip: a region of the page, checked against the ceiling before the render (server/clip/).
  if (req.clip) return captureClip(page, req, req.clip, maxPixels);
  if (req.selector !== undefined) {
    return captureClip(page, req, await elementClip(page, req.selector), maxPixels);
  }
  if (req.fullPage) {
    const size = await pageSize(client);
    const width = Math.max(req.viewport.width, size.width);
    return captureClip(page, req, { x: 0, y: 0, width, height: Math.max(size.height, req.viewport.height) }, maxPixels);
  }
  const { width, height, deviceScaleFactor: s } = req.viewport;
  const body = await shoot(page, req.format, req.quality, req.omitBackground);
  return { body, width: Math.round(width * s), height: Math.round(height * s) };
}
