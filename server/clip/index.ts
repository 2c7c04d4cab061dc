// `clip`: exactly one region of the page, in CSS pixels of the document, captured at the
// viewport's deviceScaleFactor (server/render/capture.ts takes it as the region of a capture
// beyond the viewport, like an element's box). The region is known before the render, so a region
// over the output ceiling (README "Limits") is refused up front, a 400 naming clip, rather than
// cut: the caller asked for that region and no other. With fullPage, lazy content is loaded first
// (the scroll of server/render/lazy.ts); without, the page is as it loaded. Not with selector (a
// cross-field rule of the schema).
import { badRequest } from '../errors.ts';
import { maxSide } from '../kinds/image.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';

/** The image size of a clip: its CSS size times the scale factor, rounded as the capture rounds it. */
export function clipImageSize(req: ScreenshotRequest): { width: number; height: number } | undefined {
  if (!req.clip) return undefined;
  const s = req.viewport.deviceScaleFactor;
  return { width: Math.max(1, Math.round(req.clip.width * s)), height: Math.max(1, Math.round(req.clip.height * s)) };
}

/** Checked before rendering, beside the viewport's own check: a clip over the ceiling is a 400 naming it. */
export function checkClipSize(req: ScreenshotRequest, maxPixels: number): void {
  const size = clipImageSize(req);
  if (!size) return;
  const { width: w, height: h } = size;
  if (w * h > maxPixels) {
    throw badRequest(
      `clip is ${w}x${h} device pixels at this deviceScaleFactor; the output is limited to ${maxPixels} pixels (a smaller clip, or a lower viewport.deviceScaleFactor)`,
    );
  }
  const side = maxSide(req.format);
  if (w > side || h > side) throw badRequest(`format ${req.format} images are limited to ${side} pixels per side; clip is ${w}x${h} device pixels`);
}
