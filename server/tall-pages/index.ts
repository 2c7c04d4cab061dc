// Tall and endless pages: what a full-page (or tall element) capture may cost, and where it is cut.
// The capture step never runs past the render budget (spec §4.1 rule 6): before capturing, the
// capture's cost (pixels x the rate this machine shows, server/capture-cost/) is set against what
// is left of the budget, and when the whole height cannot fit, the tallest part that fits is
// captured from the top. The answer is a 200, billed, whose x-capture-truncated gives the full
// height and the reason (./truncation.ts); a 504 stays for a page that never delivered anything.
//
// A cut has one of four reasons; when several apply the smallest height wins (a tie goes to the
// first): `height`, the request's fullPageMaxHeight; `endless`, the endless-page rule below;
// `size`, the output ceiling (MAX_OUTPUT_PIXELS, the format's largest side); `time`, the budget.
//
// Endless pages: while the lazy-content scroll (server/render/lazy.ts) runs, a page that grows
// beyond its height when the scroll started by more than ENDLESS_GROWTH_VIEWPORTS viewports, and
// to more than twice that height, is endless: the scroll stops, and the capture ends at
// max(start + 10 viewports, 2 x start). The two conditions keep a long article whose lazy images
// arrive without reserved space (it grows, but by less than itself) from being taken for a feed.
// With fullPageMaxHeight the rule is off: the user's bound decides how much of a feed they get.
//
// The lazy-content steps end early enough to leave the capture its reserve of the budget (the
// same reserve as captureOnTimeout's, server/toolkit/waits.ts), and the scroll never goes below the
// lowest row that can be captured.
import { captureCost, type CostPart } from '../capture-cost/index.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';
import { captureReserveMs } from '../toolkit/waits.ts';
import { ENDLESS_GROWTH_VIEWPORTS } from './fields.ts';
import type { Truncation, TruncationReason } from './truncation.ts';

/** What the lazy-content scroll may do (server/render/lazy.ts). */
export interface ScrollBounds {
  /** The lowest CSS y worth scrolling to: nothing below it can be captured. */
  maxY: number;
  /** The endless-page rule's growth in viewports, or null when fullPageMaxHeight replaces the rule. */
  growthViewports: number | null;
  /** When (epoch ms) the lazy-content steps must end, leaving the capture its reserve. */
  endBy: number;
}

/** What the scroll found. */
export interface ScrollOutcome {
  /** The page's CSS height when the scroll started. */
  startHeight: number;
  /** Set when the page was found endless: the CSS height where its capture ends. */
  endlessAt?: number;
}

/** A bound on a full-page capture's CSS height, from the request or from the scroll. */
export interface HeightCap {
  height: number;
  reason: 'height' | 'endless';
}

/** What capture() needs to plan a tall capture (server/render/capture.ts); without it, nothing is cut by time. */
export interface TallCapture {
  /** Milliseconds left of the render budget. */
  remainingMs?: () => number;
  cap?: HeightCap;
}

/** `maxRows`: the output rows the size ceiling allows at the viewport's width (capture.ts rowLimit). */
export function scrollBounds(req: ScreenshotRequest, maxRows: number, deadline: { at: number; budgetMs: number }): ScrollBounds {
  const sizeCss = Math.floor(maxRows / req.viewport.deviceScaleFactor);
  return {
    maxY: Math.min(req.fullPageMaxHeight ?? sizeCss, sizeCss),
    growthViewports: req.fullPageMaxHeight === undefined ? ENDLESS_GROWTH_VIEWPORTS : null,
    endBy: deadline.at - captureReserveMs(deadline.budgetMs),
  };
}

export function heightCap(req: ScreenshotRequest, scroll: ScrollOutcome | undefined): HeightCap | undefined {
  if (req.fullPageMaxHeight !== undefined) return { height: req.fullPageMaxHeight, reason: 'height' };
  if (scroll?.endlessAt !== undefined) return { height: scroll.endlessAt, reason: 'endless' };
  return undefined;
}

export interface CutInput {
  /** The full CSS height of what is asked for. */
  fullHeight: number;
  /** Output width in device pixels, and device pixels per CSS pixel. */
  outWidth: number;
  scale: number;
  format: Exclude<CostPart, 'reencode'>;
  /** The output rows the size ceiling allows at this width. */
  maxRows: number;
  cap?: HeightCap;
  /** Left of the render budget, ms (Infinity: no time cut). */
  remainingMs: number;
  /** Never cut for time below this CSS height (the first screen): a capture of nothing is no answer. */
  minHeight: number;
}

/** The CSS height to capture and, when it is less than the full height, why. */
export function planCut(i: CutInput): { height: number; truncated?: Truncation } {
  const cuts: Array<{ height: number; reason: TruncationReason }> = [];
  if (i.cap && i.cap.height < i.fullHeight) cuts.push(i.cap);
  if (Math.round(i.fullHeight * i.scale) > i.maxRows) cuts.push({ height: Math.floor(i.maxRows / i.scale), reason: 'size' });
  if (Number.isFinite(i.remainingMs)) {
    // Prefer pixels over the re-encode: what must fit is Chromium's capture alone (capture.ts
    // re-encodes a PNG afterwards only if that fits too).
    const rows = Math.floor(captureCost.pixelsWithin(i.format, i.remainingMs) / i.outWidth);
    const height = Math.max(Math.min(i.minHeight, i.fullHeight), Math.floor(rows / i.scale));
    if (height < i.fullHeight) cuts.push({ height, reason: 'time' });
  }
  // In TRUNCATION_REASONS order, so that the first of equal heights is kept.
  const cut = cuts.reduce<(typeof cuts)[number] | undefined>((a, b) => (a === undefined || b.height < a.height ? b : a), undefined);
  return cut ? { height: Math.max(1, cut.height), truncated: { fromHeight: i.fullHeight, reason: cut.reason } } : { height: i.fullHeight };
}
