// ignoreSelectors: the boxes of the elements to leave out of a comparison, measured in the page
// right after its capture (the layout the picture shows), in picture pixels: document CSS pixels
// less the capture's origin (the clip's or the element's corner for clip and selector captures,
// the scroll position for a viewport capture, 0 for fullPage), times deviceScaleFactor, cut to
// the picture. Every element each selector matches counts; one that matches nothing adds nothing.
import type { Page } from 'puppeteer-core';
import type { Rect } from '../../lib/visual-diff/diff.ts';
import { badRequest } from '../errors.ts';
import { elementClip } from './capture.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';

type Measured = { bad: number } | { scroll: { x: number; y: number }; boxes: Array<{ x: number; y: number; width: number; height: number }> };

/** In the page, as source text (the TypeScript loader's helpers do not exist there). */
const measure = (selectors: readonly string[]) => `(() => {
  const selectors = ${JSON.stringify(selectors)};
  const boxes = [];
  for (let i = 0; i < selectors.length; i++) {
    let found;
    try { found = document.querySelectorAll(selectors[i]); } catch { return { bad: i }; }
    for (const el of found) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) boxes.push({ x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height });
    }
  }
  return { scroll: { x: window.scrollX, y: window.scrollY }, boxes };
})()`;

export async function measureBoxes(
  page: Page,
  req: ScreenshotRequest,
  selectors: readonly string[],
  picture: { width: number; height: number },
): Promise<Rect[]> {
  const got = (await page.evaluate(measure(selectors))) as Measured;
  if ('bad' in got) throw badRequest(`ignoreSelectors[${got.bad}] must be a valid CSS selector`);
  const origin = req.clip ?? (req.selector !== undefined ? await elementClip(page, req.selector) : req.fullPage ? { x: 0, y: 0 } : got.scroll);
  const s = req.viewport.deviceScaleFactor;
  return got.boxes.flatMap((b) => {
    const x0 = Math.max(0, Math.floor((b.x - origin.x) * s)),
      y0 = Math.max(0, Math.floor((b.y - origin.y) * s));
    const x1 = Math.min(picture.width, Math.ceil((b.x + b.width - origin.x) * s)),
      y1 = Math.min(picture.height, Math.ceil((b.y + b.height - origin.y) * s));
    return x1 > x0 && y1 > y0 ? [{ x: x0, y: y0, width: x1 - x0, height: y1 - y0 }] : [];
  });
}
