// The golden comparator: the one visual diff (lib/visual-diff/, which the server's POST
// /v1/compare uses too) under a declared two-part tolerance (DESIGN §6, like Playwright's
// toHaveScreenshot): a per-pixel colour threshold, and a budget of differing pixels given both as
// a count and as a ratio of the image, the smaller of the two winning.
import { diffPictures } from '../../lib/visual-diff/diff.ts';
import { diffPicture } from '../../lib/visual-diff/picture.ts';
import type { Rgba } from './image.ts';
import type { Region } from '../model/model.ts';
import { resolveRegion } from './probes.ts';

export { PIXELMATCH_VERSION } from '../../lib/visual-diff/diff.ts';
/** Options passed to pixelmatch besides the per-case threshold (reported in the JSON report). */
export const PIXELMATCH_OPTIONS = { includeAA: false } as const;

export interface Tolerance {
  threshold: number;
  maxDiffPixels: number;
  maxDiffPixelRatio: number;
  /** Regions left out of the comparison (painted the same in both images first). */
  mask?: Region[];
}

export interface Comparison {
  pass: boolean;
  /** Differing pixels (NaN when the sizes differ). */
  diffPixels: number;
  /** The budget that applied: min(maxDiffPixels, maxDiffPixelRatio * total). */
  allowed: number;
  total: number;
  /** Diff image (same size as the inputs: the actual image in grey, differing pixels red, masks blue), absent when the sizes differ. */
  diff?: Rgba;
  detail: string;
}

export function allowedDiff(total: number, t: Tolerance): number {
  return Math.min(t.maxDiffPixels, Math.floor(t.maxDiffPixelRatio * total));
}

export function compareImages(expected: Rgba, actual: Rgba, t: Tolerance): Comparison {
  const total = actual.width * actual.height;
  if (expected.width !== actual.width || expected.height !== actual.height) {
    return {
      pass: false,
      diffPixels: NaN,
      allowed: 0,
      total,
      detail: `size differs: expected ${expected.width}x${expected.height}, got ${actual.width}x${actual.height}`,
    };
  }
  // Masked regions are left out (the same rectangles in both images).
  const masks = (t.mask ?? []).flatMap((region) => {
    const r = resolveRegion(actual, region);
    return r ? [{ x: r.x, y: r.y, width: r.w, height: r.h }] : [];
  });
  const d = diffPictures(actual, expected, { threshold: t.threshold, ...PIXELMATCH_OPTIONS, masks });
  const diffPixels = d.diffPixels;
  const allowed = allowedDiff(total, t);
  const pass = diffPixels <= allowed;
  return {
    pass,
    diffPixels,
    allowed,
    total,
    diff: diffPicture(actual, d, masks),
    detail: `${diffPixels} of ${total} pixels differ${t.mask?.length ? ` outside ${t.mask.length} masked region(s)` : ''} at threshold ${t.threshold} (allowed ${allowed} = min(${t.maxDiffPixels}, ${t.maxDiffPixelRatio} x ${total}))`,
  };
}
