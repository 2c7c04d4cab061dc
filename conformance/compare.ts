// The golden comparator: pixelmatch under a declared two-part tolerance (DESIGN §6, like
// Playwright's toHaveScreenshot): a per-pixel colour threshold, and a budget of differing pixels
// given both as a count and as a ratio of the image, the smaller of the two winning.
import pixelmatch from 'pixelmatch';
import type { Rgba } from './image.ts';
import type { Region } from './model.ts';
import { resolveRegion } from './probes.ts';

export const PIXELMATCH_VERSION = '7.2.0';
/** Options passed to pixelmatch besides the per-case threshold (reported in the JSON report). */
export const PIXELMATCH_OPTIONS = { includeAA: false, alpha: 0.1 } as const;

export interface Tolerance {
  threshold: number;
  maxDiffPixels: number;
  maxDiffPixelRatio: number;
  /** Regions left out of the comparison (painted the same in both images first). */
  mask?: Region[];
}

/** A copy of the image with the regions painted opaque magenta (the same in expected and actual). */
function masked(img: Rgba, regions: Region[]): Rgba {
  const data = new Uint8Array(img.data);
  for (const region of regions) {
    const r = resolveRegion(img, region);
    if (!r) continue;
    for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) data.set([255, 0, 255, 255], (y * img.width + x) * 4);
  }
  return { width: img.width, height: img.height, data };
}

export interface Comparison {
  pass: boolean;
  /** Differing pixels (NaN when the sizes differ). */
  diffPixels: number;
  /** The budget that applied: min(maxDiffPixels, maxDiffPixelRatio * total). */
  allowed: number;
  total: number;
  /** Diff image (same size as the inputs), absent when the sizes differ. */
  diff?: Rgba;
  detail: string;
}

/** pixelmatch reads pixels as 32-bit words: it needs 4-byte aligned views. */
function aligned(a: Uint8Array): Uint8Array {
  return a.byteOffset % 4 === 0 ? a : new Uint8Array(a);
}

export function allowedDiff(total: number, t: Tolerance): number {
  return Math.min(t.maxDiffPixels, Math.floor(t.maxDiffPixelRatio * total));
}

export function compareImages(expected: Rgba, actual: Rgba, t: Tolerance): Comparison {
  const total = actual.width * actual.height;
  if (expected.width !== actual.width || expected.height !== actual.height) {
    return { pass: false, diffPixels: NaN, allowed: 0, total, detail: `size differs: expected ${expected.width}x${expected.height}, got ${actual.width}x${actual.height}` };
  }
  if (t.mask?.length) {
    expected = masked(expected, t.mask);
    actual = masked(actual, t.mask);
  }
  const diff = new Uint8Array(total * 4);
  const diffPixels = pixelmatch(aligned(expected.data), aligned(actual.data), diff, actual.width, actual.height, { threshold: t.threshold, ...PIXELMATCH_OPTIONS });
  const allowed = allowedDiff(total, t);
  const pass = diffPixels <= allowed;
  return {
    pass,
    diffPixels,
    allowed,
    total,
    diff: { width: actual.width, height: actual.height, data: diff },
    detail: `${diffPixels} of ${total} pixels differ${t.mask?.length ? ` outside ${t.mask.length} masked region(s)` : ''} at threshold ${t.threshold} (allowed ${allowed} = min(${t.maxDiffPixels}, ${t.maxDiffPixelRatio} x ${total}))`,
  };
}
